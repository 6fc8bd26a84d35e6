# The profiler's host side (tools/profile; docs/profiling.md).
#
#   make profile        the profiles docs/profiling.md shows: iperf
#                       host->guest and HTTP, net_alloc=native and stock,
#                       under -icount; the flame graphs go to
#                       docs/figures/profile-*.svg (committed: rerun and
#                       commit them with the tables of
#                       build/profile/summary.md), everything else to
#                       build/profile/
#   make profile PROFILE_ARGS='run --load udp --mode stock'
#                       any one run (tools/profile --help)
#   make test-tools     host tests of the tools' logic (tests/tools, pytest;
#                       part of make test)
.PHONY: profile test-tools deps-profile

PROFILE_ARGS ?= docs

# wrk drives the HTTP load (iperf and curl come with deps-kernel).
deps-profile:
	@tools/setup-deps kernel qemu net vslinux

profile: deps-profile $(KERNEL_ELF)
	tools/profile $(PROFILE_ARGS)

test-tools: deps-kernel deps-plots
	@$(PYTEST) -q tests/tools
