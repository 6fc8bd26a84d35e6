# The HTTP server's static pages (net/www/): compiled into the kernel image
# as lwIP fsdata, the form lwIP's apps/http/fs.c reads its files in. No file
# system: tools/gen-http-fsdata turns net/www/pages.txt and the files it
# names into one C file of complete responses (status line, headers, body)
# that fs.c includes instead of lwIP's sample fsdata.c (lwipopts.h:
# HTTPD_FSDATA_FILE). Included after mk/net.mk (uses LWIP_OBJDIR).
WWW_DIR := net/www
WWW_GEN := $(BUILD)/kernel/gen
WWW_FSDATA := $(WWW_GEN)/http_fsdata.c
WWW_FILES := $(wildcard $(WWW_DIR)/*)

$(WWW_FSDATA): $(WWW_FILES) tools/gen-http-fsdata
	@mkdir -p $(dir $@)
	tools/gen-http-fsdata $(WWW_DIR)/pages.txt $@

$(LWIP_OBJDIR)/apps/http/fs.o: $(WWW_FSDATA)
$(LWIP_OBJDIR)/apps/http/fs.o: KERNEL_CFLAGS += -I$(WWW_GEN)
