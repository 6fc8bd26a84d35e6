# The event tracer's capture (tools/trace-capture; docs/observe.md).
#
#   make trace          boots the kernel, starts a trace of TRACE_CLASSES
#                       (default all) over HTTP, runs TRACE_COUNT (20) of
#                       TRACE_LOAD (http: GET /, iperf: KiB to lwiperf,
#                       udp: echo datagrams) from the host and writes
#                       the trace to $(TRACE_OUT) (build/trace/LOAD.json),
#                       checked against the trace-event format; ~5 s here
#   make trace-view     serves $(TRACE_OUT) with speedscope on 127.0.0.1
#                       (tools/trace-view; TRACE_VIEW_PORT, default 8042)
#                       and prints the address that opens it
.PHONY: trace trace-view

TRACE_LOAD ?= http
TRACE_COUNT ?= 20
TRACE_CLASSES ?= all
TRACE_OUT ?= $(BUILD)/trace/$(TRACE_LOAD).json
TRACE_VIEW_PORT ?= 8042

trace: deps-kernel $(KERNEL_ELF)
	tools/trace-capture --load $(TRACE_LOAD) --count $(TRACE_COUNT) \
		--classes $(TRACE_CLASSES) --out $(TRACE_OUT)

trace-view: deps-viewer
	tools/trace-view --port $(TRACE_VIEW_PORT) $(TRACE_OUT)
