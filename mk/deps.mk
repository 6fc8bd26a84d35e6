# Set-up: Debian packages (tools/setup-deps) and lwIP's source
# (tools/fetch-lwip). Stamps make a second run a no-op.
.PHONY: deps deps-host deps-kernel deps-bench deps-browser deps-plots

deps: deps-host deps-kernel

deps-host:
	@tools/setup-deps host

deps-kernel:
	@tools/setup-deps kernel qemu net hostile

deps-bench:
	@tools/setup-deps host bench

# The dashboard's browser test (tests/qemu/test_dashboard.py): Debian's
# chromium, its WebDriver and python3-selenium.
deps-browser:
	@tools/setup-deps browser || echo "deps: chromium could not be installed; the browser test will skip"

# make plots: matplotlib.
deps-plots:
	@tools/setup-deps plots
