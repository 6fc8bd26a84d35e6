# Set-up: Debian packages (tools/setup-deps), lwIP's source
# (tools/fetch-lwip) and the trace viewer (tools/fetch-speedscope).
# Stamps make a second run a no-op.
.PHONY: deps deps-host deps-kernel deps-bench deps-browser deps-viewer deps-plots

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

# The trace viewer's browser test (tests/qemu/test_trace_viewer.py) and
# tools/trace-view: speedscope from npm, pinned and checked by its sha512,
# into the ignored third_party/speedscope.
deps-viewer:
	@tools/fetch-speedscope || echo "deps: speedscope could not be fetched; the trace viewer test will skip"

# make plots: matplotlib.
deps-plots:
	@tools/setup-deps plots
