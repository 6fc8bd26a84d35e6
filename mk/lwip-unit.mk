# lwIP's own unit tests (test/unit in the fetched source, Debian's Check)
# on the host, with lwIP's memory behind our network glue (net/net_mem.c)
# on the host build of mm/ (ASan + UBSan):
#
#   make test-lwip-unit    (in make test) the suites in both modes of the
#                          glue, build/lwip-unit/lwip_unittests native and
#                          stock, and in the reference build: lwIP alone,
#                          its own heap and pools, none of our code
#                          (build/lwip-unit/plain/lwip_unittests). A test
#                          failing only through the glue is ours.
#                          tools/run-lwip-unit checks each test's result and
#                          lists those that cannot apply, with the reason.
#
# tests/lwip/lwipopts.h is lwIP's test configuration plus the glue's mem
# and memp set-up (as net/lwipopts.h); tests/lwip/main.c boots a simulated
# machine and picks the mode. lwIP's sources and tests are compiled as they
# come (NO_SYS=0 with the tests' own single-threaded sys_arch), with the
# host's warnings except those lwIP's test code trips (below).
.PHONY: test-lwip-unit test-lwip-unit-run deps-lwip

LWIPU_DIR := $(BUILD)/lwip-unit
LWIPU_FLAGS := -std=gnu99 -g -O1 -Wall -Wextra -Werror -D_GNU_SOURCE \
	$(HOST_CFLAGS_asan) -Itests/lwip -I$(LWIP_DIR)/test/unit \
	-I$(LWIP_SRC)/include -I. -Imm -Imm/host -DLWIP_UNITTESTS_FORK
# lwIP's test files: unused parameters in their callbacks, and Check's
# fail_unless() is a variadic macro called without a message.
LWIPU_TEST_FLAGS := -Wno-unused-parameter -Wno-missing-field-initializers \
	-Wno-sign-compare -Wno-format-extra-args

# lwIP's own file lists (src/Filelists.mk), minus memp.c (built renamed,
# below: net/net_mem.c provides memp_*), plus the apps the tests cover.
LWIPU_SRCS := $(addprefix core/,init.c def.c dns.c inet_chksum.c ip.c mem.c \
	netif.c pbuf.c raw.c stats.c sys.c altcp.c altcp_alloc.c altcp_tcp.c \
	tcp.c tcp_in.c tcp_out.c timeouts.c udp.c) \
	$(addprefix core/ipv4/,autoip.c dhcp.c etharp.c icmp.c igmp.c \
	ip4_frag.c ip4.c ip4_addr.c) \
	$(addprefix core/ipv6/,dhcp6.c ethip6.c icmp6.c inet6.c ip6.c \
	ip6_addr.c ip6_frag.c mld6.c nd6.c) \
	$(addprefix api/,api_lib.c api_msg.c err.c if_api.c netbuf.c netdb.c \
	netifapi.c sockets.c tcpip.c) \
	netif/ethernet.c apps/mdns/mdns.c apps/mqtt/mqtt.c
# The suites of lwip_unittests.c, each its test file.
LWIPU_TESTS := lwip_unittests.c arch/sys_arch.c api/test_sockets.c \
	core/test_def.c core/test_mem.c core/test_netif.c core/test_pbuf.c \
	core/test_timers.c dhcp/test_dhcp.c etharp/test_etharp.c \
	ip4/test_ip4.c ip6/test_ip6.c mdns/test_mdns.c mqtt/test_mqtt.c \
	tcp/tcp_helper.c tcp/test_tcp_oos.c tcp/test_tcp.c udp/test_udp.c

LWIPU_OBJS := $(patsubst %.c,$(LWIPU_DIR)/src/%.o,$(LWIPU_SRCS)) \
	$(patsubst %.c,$(LWIPU_DIR)/test/%.o,$(LWIPU_TESTS)) \
	$(LWIPU_DIR)/stock/mem.o $(LWIPU_DIR)/stock/memp.o \
	$(LWIPU_DIR)/net_mem.o $(LWIPU_DIR)/tcp_ooseq.o $(LWIPU_DIR)/main.o \
	$(LWIPU_DIR)/test_tcp_large.o
LWIPU_HEADERS := $(wildcard tests/lwip/*.h tests/lwip/arch/*.h) \
	net/net_mem.h net/net_numa.h net/tcp_ooseq.h

deps-lwip:
	@tools/setup-deps host lwip

$(LWIPU_DIR)/src/%.o: $(LWIP_SRC)/%.c $(LWIPU_HEADERS) | $(LWIP_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(LWIPU_FLAGS) -c $< -o $@
$(LWIPU_DIR)/stock/mem.o: $(LWIP_SRC)/core/mem.c $(LWIPU_HEADERS) | $(LWIP_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(LWIPU_FLAGS) -DNET_LWIP_STOCK_HEAP -c $< -o $@
$(LWIPU_DIR)/stock/memp.o: $(LWIP_SRC)/core/memp.c $(LWIPU_HEADERS) | $(LWIP_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(LWIPU_FLAGS) -DNET_LWIP_STOCK_MEMP -c $< -o $@
# Its main() becomes lwip_unittests_main(), called by tests/lwip/main.c once
# the machine is up. (lwIP's own switch for that, LWIP_UNITTESTS_LIB, leaves
# a declaration without its ';' in lwip_check.h in 2.1.3.)
$(LWIPU_DIR)/test/lwip_unittests.o: LWIPU_TEST_FLAGS += -Dmain=lwip_unittests_main
$(LWIPU_DIR)/test/%.o: $(LWIP_DIR)/test/unit/%.c $(LWIPU_HEADERS) | $(LWIP_STAMP) deps-lwip
	@mkdir -p $(dir $@)
	$(HOST_CC) $(LWIPU_FLAGS) $(LWIPU_TEST_FLAGS) -c $< -o $@
$(LWIPU_DIR)/net_mem.o: net/net_mem.c $(LWIPU_HEADERS) $(MM_HEADERS) | $(LWIP_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(LWIPU_FLAGS) -c $< -o $@
# The out-of-order reclaim net_mem.c calls when the receive buffers run out.
$(LWIPU_DIR)/tcp_ooseq.o: net/tcp_ooseq.c $(LWIPU_HEADERS) | $(LWIP_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(LWIPU_FLAGS) -c $< -o $@
$(LWIPU_DIR)/main.o: tests/lwip/main.c $(LWIPU_HEADERS) $(MM_HEADERS) | $(LWIP_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(LWIPU_FLAGS) -c $< -o $@
# Our suites over our lwIP patches (tests/lwip/main.c runs them).
$(LWIPU_DIR)/test_tcp_large.o: tests/lwip/test_tcp_large.c $(LWIPU_HEADERS) | $(LWIP_STAMP) deps-lwip
	@mkdir -p $(dir $@)
	$(HOST_CC) $(LWIPU_FLAGS) $(LWIPU_TEST_FLAGS) -c $< -o $@
$(LWIPU_DIR)/lwip_unittests: $(LWIPU_OBJS) $(BUILD)/host/asan/libmm.a | deps-lwip
	$(HOST_CC) $(LWIPU_FLAGS) $^ $(shell pkg-config --libs check 2>/dev/null) -o $@

# The reference build: tests/lwip/plain/lwipopts.h first, lwIP's memp.c
# as it comes, lwIP's own main().
LWIPU_PLAIN := $(LWIPU_DIR)/plain
LWIPU_PLAIN_FLAGS := $(subst -Itests/lwip ,-Itests/lwip/plain -Itests/lwip ,$(LWIPU_FLAGS))
LWIPU_PLAIN_OBJS := $(patsubst %.c,$(LWIPU_PLAIN)/src/%.o,$(LWIPU_SRCS) core/memp.c) \
	$(patsubst %.c,$(LWIPU_PLAIN)/test/%.o,$(LWIPU_TESTS))
# lwIP's test_mem_double_free frees a pointer its heap never returned, on
# purpose; mem.c reads that block's header (misaligned) before it notices:
# no alignment check there (x86-64 reads it fine).
$(LWIPU_PLAIN)/src/core/mem.o: LWIPU_PLAIN_FLAGS += -fno-sanitize=alignment
$(LWIPU_PLAIN)/src/%.o: $(LWIP_SRC)/%.c $(LWIPU_HEADERS) tests/lwip/plain/lwipopts.h | $(LWIP_STAMP)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(LWIPU_PLAIN_FLAGS) -c $< -o $@
$(LWIPU_PLAIN)/test/%.o: $(LWIP_DIR)/test/unit/%.c $(LWIPU_HEADERS) tests/lwip/plain/lwipopts.h | $(LWIP_STAMP) deps-lwip
	@mkdir -p $(dir $@)
	$(HOST_CC) $(LWIPU_PLAIN_FLAGS) $(LWIPU_TEST_FLAGS) -c $< -o $@
$(LWIPU_PLAIN)/lwip_unittests: $(LWIPU_PLAIN_OBJS) | deps-lwip
	$(HOST_CC) $(LWIPU_PLAIN_FLAGS) $^ $(shell pkg-config --libs check 2>/dev/null) -o $@

# lwIP's test sources exist only once tools/fetch-lwip has run, and make
# caches what a folder holds when it first looks into it: in a fresh clone,
# where the fetch happens in this same run, the pattern rules above found
# no source ("No rule to make target 'build/lwip-unit/test/
# lwip_unittests.o'"). A second make, started once the source is there,
# reads the folders afresh.
test-lwip-unit: | $(LWIP_STAMP) deps-lwip
	@$(MAKE) --no-print-directory test-lwip-unit-run
test-lwip-unit-run: $(LWIPU_DIR)/lwip_unittests $(LWIPU_PLAIN)/lwip_unittests
	@tools/run-lwip-unit $(LWIPU_DIR)/lwip_unittests:native \
		$(LWIPU_DIR)/lwip_unittests:stock $(LWIPU_PLAIN)/lwip_unittests:plain
