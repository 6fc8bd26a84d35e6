# make test-readme (a step of make test): every command README.md shows,
# run as a new user would in its shortest real form, by
# tests/readme/test_readme_commands.py -- which also fails when the README
# shows a command that no test there runs. Everything the commands need
# is installed and built first, so the makes the test starts (several at
# once) find it done and build nothing side by side. ~2 minutes here, 3
# at once (3.5 one at a time); the quick make bench is the longest part.
#   README_TEST_JOBS=N   tests at once (pytest-xdist; default 3: most wait
#                        on a guest's network or a benchmark's clock)
#   README_TEST_ARGS     more pytest options, e.g. -k make_plots
.PHONY: test-readme
README_TEST_JOBS ?= 3
README_TEST_ARGS ?=

test-readme: deps deps-bench deps-plots deps-fuzz deps-vslinux deps-profile \
		$(KERNEL_ELF) $(KERNEL_ISO) host-lib fuzz-build linux-guest
	@$(PYTEST) -q tests/readme --durations=0 \
		$(if $(filter-out 0 1,$(README_TEST_JOBS)),-n $(README_TEST_JOBS) --dist loadgroup) \
		$(README_TEST_ARGS)
