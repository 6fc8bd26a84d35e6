# The profiler's host side (tools/profile; docs/profiling.md).
#
#   make profile        the profiles docs/profiling.md shows: iperf
#                       host->guest and HTTP, net_alloc=native and stock,
#                       under -icount; the flame graphs go to
#                       docs/figures/profile-*.svg (committed: rerun and
#                       commit them with the tables of
#                       build/profile/summary.md), everything else to
#                       build/profile/. Six runs of PROFILE_SECS (default
#                       10) s of load each, ~2 minutes here; PROFILE_ONLY
#                       runs some of them (tools/profile docs --only), as
#                       make test does: PROFILE_SECS=1 PROFILE_ONLY=
#                       http-stock,iperf-h2g-native-tcg, ~20 s.
#                       PROFILE_OUT and PROFILE_FIGURES choose the folders.
#   make profile PROFILE_ARGS='run --load udp --mode stock'
#                       any one run (tools/profile --help)
#   make test-tools     host tests of the tools' logic (tests/tools, pytest;
#                       part of make test)
.PHONY: profile test-tools deps-profile

PROFILE_SECS ?= 10
PROFILE_OUT ?= $(BUILD)/profile
PROFILE_FIGURES ?= docs/figures
PROFILE_ONLY ?=
PROFILE_ARGS ?= docs --seconds $(PROFILE_SECS) --out $(PROFILE_OUT) \
	--figures $(PROFILE_FIGURES) $(if $(PROFILE_ONLY),--only $(PROFILE_ONLY))

# wrk drives the HTTP load (iperf and curl come with deps-kernel).
deps-profile:
	@tools/setup-deps kernel qemu net vslinux

profile: deps-profile $(KERNEL_ELF)
	tools/profile $(PROFILE_ARGS)

# tests/tools/test_qemu_guest.py boots the kernel through tools/qemu_guest.
test-tools: deps-kernel deps-plots $(KERNEL_ELF)
	@$(PYTEST) -q tests/tools
