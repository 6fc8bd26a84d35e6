# Networking: lwIP (fetched at build time), its port and the NIC drivers.
# Included before mk/kernel.mk. Our own sources (drivers/*.c, net/*.c) are
# compiled by mk/kernel.mk's wildcards; this fragment adds what they need:
#  - tools/fetch-lwip, run once (stamp third_party/lwip/.fetched), before
#    anything that includes an lwIP header is compiled;
#  - the include paths (KERNEL_EXTRA_CFLAGS);
#  - the lwIP objects (KERNEL_EXTRA_OBJS) and their rule. lwIP is built
#    with the kernel's flags. mem.c is built twice: as the wrapper that
#    calls our net_heap_malloc(), and with NET_LWIP_STOCK_HEAP as lwIP's
#    own heap under renamed functions; memp.c is built once, with its
#    functions renamed (NET_LWIP_STOCK_MEMP), because net/net_mem.c
#    provides memp_malloc() itself. So net_alloc=stock|native can be
#    chosen at boot (net/lwipopts.h, net/net_mem.c).
LWIP_DIR := third_party/lwip
LWIP_SRC := $(LWIP_DIR)/src
LWIP_STAMP := $(LWIP_DIR)/.fetched
LWIP_OBJDIR := $(BUILD)/lwip

# NO_SYS=1 needs nothing from api/ (core, core/ipv4, netif/ethernet.c and
# the apps' files build alone), core/ipv6 for the dual stack (dhcp6.c
# builds to nothing: LWIP_IPV6_DHCP6 is off); altcp and dns are unused, and so is lwIP's httpd
# (apps/http_server.c serves HTTP).
LWIP_FILES := core/def.c core/inet_chksum.c core/init.c core/ip.c \
	core/mem.c core/netif.c core/pbuf.c core/raw.c \
	core/stats.c core/sys.c core/tcp.c core/tcp_in.c core/tcp_out.c \
	core/timeouts.c core/udp.c \
	core/ipv4/autoip.c core/ipv4/dhcp.c core/ipv4/etharp.c \
	core/ipv4/icmp.c core/ipv4/igmp.c core/ipv4/ip4.c \
	core/ipv4/ip4_addr.c core/ipv4/ip4_frag.c \
	core/ipv6/ethip6.c core/ipv6/icmp6.c core/ipv6/inet6.c \
	core/ipv6/ip6.c core/ipv6/ip6_addr.c core/ipv6/ip6_frag.c \
	core/ipv6/mld6.c core/ipv6/nd6.c \
	netif/ethernet.c apps/lwiperf/lwiperf.c
LWIP_OBJS := $(patsubst %.c,$(LWIP_OBJDIR)/%.o,$(LWIP_FILES)) \
	$(LWIP_OBJDIR)/stock/mem.o $(LWIP_OBJDIR)/stock/memp.o
NET_INCLUDES := -Inet -I$(LWIP_SRC)/include
NET_HEADERS = $(wildcard net/*.h net/arch/*.h drivers/*.h)

KERNEL_EXTRA_CFLAGS += $(NET_INCLUDES)
KERNEL_EXTRA_OBJS += $(LWIP_OBJS)

.PHONY: fetch-lwip
fetch-lwip: $(LWIP_STAMP)
# Our lwIP fixes: a new or changed patch unpacks and patches lwIP again.
LWIP_PATCHES := $(wildcard net/lwip-patches/*.patch)
$(LWIP_STAMP): tools/fetch-lwip $(LWIP_PATCHES)
	@tools/fetch-lwip

# KERNEL_CFLAGS is set by mk/kernel.mk (read when the recipe runs). The
# objects depend on the stamp itself, not only its order: make does not
# look again at a source's time after the fetch re-unpacked (and patched)
# it in the same run.
$(LWIP_OBJDIR)/%.o: $(LWIP_SRC)/%.c $(NET_HEADERS) $(LWIP_STAMP)
	@mkdir -p $(dir $@)
	$(KERNEL_CC) $(KERNEL_CFLAGS) -c $< -o $@
# The file list is known only after the fetch: give make the sources' rule.
$(addprefix $(LWIP_SRC)/,$(LWIP_FILES)): | $(LWIP_STAMP)

$(LWIP_OBJDIR)/stock/mem.o: $(LWIP_SRC)/core/mem.c $(NET_HEADERS) $(LWIP_STAMP)
	@mkdir -p $(dir $@)
	$(KERNEL_CC) $(KERNEL_CFLAGS) -DNET_LWIP_STOCK_HEAP -c $< -o $@
$(LWIP_OBJDIR)/stock/memp.o: $(LWIP_SRC)/core/memp.c $(NET_HEADERS) $(LWIP_STAMP)
	@mkdir -p $(dir $@)
	$(KERNEL_CC) $(KERNEL_CFLAGS) -DNET_LWIP_STOCK_MEMP -c $< -o $@

# Our drivers/, net/ and apps/ objects include lwIP headers: fetch first.
$(patsubst %,$(BUILD)/kernel/obj/%.o,$(wildcard net/*.c drivers/*.c apps/*.c)): | $(LWIP_STAMP)

# `make run`: QEMU user networking with host port forwards to the guest's
# HTTP (80), echo (7, TCP and UDP) and iperf (5001) services. Each host port
# is the first free one from the default up; choose your own with e.g.
#   make run NET_HTTP_PORT=9000 NET_ECHO_PORT=9007 NET_IPERF_PORT=9001
# The ports also go on the kernel command line so that, once DHCP has
# bound and the services listen, the console prints the exact curl / iperf
# / nc commands to type on the host.
NET_HTTP_PORT ?= $(shell tools/free-port 8080)
NET_ECHO_PORT ?= $(shell tools/free-port 7007)
NET_IPERF_PORT ?= $(shell tools/free-port 5001)
RUN_NET_ARGS += --hostfwd $(NET_HTTP_PORT):80 --hostfwd $(NET_ECHO_PORT):7 \
	--hostfwd udp:$(NET_ECHO_PORT):7 --hostfwd $(NET_IPERF_PORT):5001 \
	--append "http_hostport=$(NET_HTTP_PORT) echo_hostport=$(NET_ECHO_PORT) iperf_hostport=$(NET_IPERF_PORT) $(NET_APPEND)"

# tests/host/net/test_chksum.c compiles net/chksum.c and lwIP's own
# core/inet_chksum.c (the reference) into itself, with lwIP's headers and
# the reference's options (tests/host/net/lwip_ref/lwipopts.h, found before
# net/'s for lwIP's #include "lwipopts.h"; net/arch/cc.h is the port).
# (mk/host.mk, which defines HOST_VARIANTS, is read after this file: name
# the variants here.)
NET_HOST_TEST_CHKSUM := $(foreach v,plain tsan asan,$(BUILD)/host/$(v)/tests/net/test_chksum)
$(NET_HOST_TEST_CHKSUM): net/chksum.c net/chksum.h \
	tests/host/net/lwip_ref/lwipopts.h | $(LWIP_STAMP)
$(NET_HOST_TEST_CHKSUM): HOST_CFLAGS_COMMON += -Itests/host/net/lwip_ref -Inet \
	-I$(LWIP_SRC)/include

# tests/host/net/test_rx_csum.c compiles net/rx_csum.c and net/chksum.c
# into itself (no lwIP: the reference sum is the test's own).
NET_HOST_TEST_RX_CSUM := $(foreach v,plain tsan asan,$(BUILD)/host/$(v)/tests/net/test_rx_csum)
$(NET_HOST_TEST_RX_CSUM): net/rx_csum.c net/rx_csum.h net/chksum.c net/chksum.h

# tests/host/net/test_ip6_text.c compiles net/ip6_text.c (ip6= and gw6='s
# address text, plain C) into itself.
NET_HOST_TEST_IP6_TEXT := $(foreach v,plain tsan asan,$(BUILD)/host/$(v)/tests/net/test_ip6_text)
$(NET_HOST_TEST_IP6_TEXT): net/ip6_text.c net/ip6_text.h

# tests/host/net/test_nd6_check.c compiles net/nd6_check.c (RFC 4861's
# validity checks for neighbour discovery, plain C) into itself.
NET_HOST_TEST_ND6_CHECK := $(foreach v,plain tsan asan,$(BUILD)/host/$(v)/tests/net/test_nd6_check)
$(NET_HOST_TEST_ND6_CHECK): net/nd6_check.c net/nd6_check.h

# tests/host/net/test_busy_poll.c compiles net/busy_poll.c (the adaptive
# busy-poll window, plain C) into itself.
NET_HOST_TEST_BUSY_POLL := $(foreach v,plain tsan asan,$(BUILD)/host/$(v)/tests/net/test_busy_poll)
$(NET_HOST_TEST_BUSY_POLL): net/busy_poll.c net/busy_poll.h

# tests/host/net/test_rx_gro.c compiles net/rx_gro.c into itself (no lwIP).
NET_HOST_TEST_RX_GRO := $(foreach v,plain tsan asan,$(BUILD)/host/$(v)/tests/net/test_rx_gro)
$(NET_HOST_TEST_RX_GRO): net/rx_gro.c net/rx_gro.h

# tests/host/net/test_toeplitz.c compiles net/toeplitz.c and
# net/rss_check.c (RSS's hash and the frame fields it covers) into itself.
NET_HOST_TEST_TOEPLITZ := $(foreach v,plain tsan asan,$(BUILD)/host/$(v)/tests/net/test_toeplitz)
$(NET_HOST_TEST_TOEPLITZ): net/toeplitz.c net/toeplitz.h net/rss_check.c \
	net/rss_check.h

# tests/host/net/test_rss_port.c compiles net/rss_port.c and
# net/toeplitz.c (the steered local port of an active open) into itself.
NET_HOST_TEST_RSS_PORT := $(foreach v,plain tsan asan,$(BUILD)/host/$(v)/tests/net/test_rss_port)
$(NET_HOST_TEST_RSS_PORT): net/rss_port.c net/rss_port.h net/toeplitz.c \
	net/toeplitz.h

# tests/host/net/test_net_handoff.c compiles net/net_handoff.c (the rings
# between stack instances, net_stack=percpu) into itself, over the host mm
# library's ALF queue; it provides kernel/poll.h's poll_wake().
NET_HOST_TEST_NET_HANDOFF := $(foreach v,plain tsan asan,$(BUILD)/host/$(v)/tests/net/test_net_handoff)
$(NET_HOST_TEST_NET_HANDOFF): net/net_handoff.c net/net_handoff.h

# tests/host/net/test_flow_owner.c compiles net/flow_owner.c,
# net/rss_check.c and net/toeplitz.c (which stack instance owns a frame,
# net_stack=percpu) into itself.
NET_HOST_TEST_FLOW_OWNER := $(foreach v,plain tsan asan,$(BUILD)/host/$(v)/tests/net/test_flow_owner)
$(NET_HOST_TEST_FLOW_OWNER): net/flow_owner.c net/flow_owner.h \
	net/rss_check.c net/rss_check.h net/toeplitz.c net/toeplitz.h
