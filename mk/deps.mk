# Set-up: Debian packages (tools/setup-deps) and lwIP's source
# (tools/fetch-lwip). Stamps make a second run a no-op.
.PHONY: deps deps-host deps-kernel deps-bench

deps: deps-host deps-kernel

deps-host:
	@tools/setup-deps host

deps-kernel:
	@tools/setup-deps kernel qemu net

deps-bench:
	@tools/setup-deps host bench
