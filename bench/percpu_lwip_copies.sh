#!/bin/sh
# What N symbol-renamed copies of lwIP cost in the image: link lwIP's
# objects (as make built them, build/lwip/) into one relocatable object,
# give every global it defines a per-copy prefix (objcopy
# --redefine-syms; undefined references -- memcpy, sys_now, our hooks --
# stay shared), check that two copies link side by side, and print each
# copy's text, data and bss, and the global and static variables that
# are the per-copy state. Run after `make`:
#   sh bench/percpu_lwip_copies.sh
set -eu
b=build/lwip
[ -d "$b/core" ] || { echo "run make first (no $b/core)" >&2; exit 1; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
objs="$b/core/*.o $b/core/ipv4/*.o $b/core/ipv6/*.o $b/netif/*.o"
# shellcheck disable=SC2086
ld -r -o "$t/lwip.o" $objs
nm --defined-only -g "$t/lwip.o" | awk '{print $3, "cpu1_" $3}' >"$t/map1"
objcopy --redefine-syms="$t/map1" "$t/lwip.o" "$t/lwip_cpu1.o"
ld -r -o "$t/two.o" "$t/lwip.o" "$t/lwip_cpu1.o"
echo "two copies link side by side: $(nm --defined-only -g "$t/two.o" | wc -l) globals" \
	"($(wc -l <"$t/map1") each)"
size "$t/lwip.o" "$t/two.o"
echo "variables of one copy (global and static, from nm): count, bytes"
nm -S --defined-only "$t/lwip.o" | awk '$3 ~ /^[bBdD]$/ {n++; s += ("0x" $2) + 0} END {print n, s}'
nm -S --size-sort --defined-only "$t/lwip.o" | awk '$3 ~ /^[bBdD]$/' | tail -8
