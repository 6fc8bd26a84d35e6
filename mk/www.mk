# The HTTP server's static pages (apps/www/): compiled into the kernel image
# as one C table of answers. No file system: tools/gen-http-pages turns
# apps/www/pages.txt and the files it names into build/kernel/gen/http_pages.c
# (apps/http_pages.h's http_pages[]: each page's status line, headers and
# body), which apps/http_site.c serves. Included after mk/net.mk.
WWW_DIR := apps/www
WWW_GEN := $(BUILD)/kernel/gen
WWW_PAGES := $(WWW_GEN)/http_pages.c
WWW_PAGES_OBJ := $(WWW_GEN)/http_pages.o
WWW_FILES := $(wildcard $(WWW_DIR)/*)

$(WWW_PAGES): $(WWW_FILES) tools/gen-http-pages
	@mkdir -p $(dir $@)
	tools/gen-http-pages $(WWW_DIR)/pages.txt $@

# KERNEL_CFLAGS is set by mk/kernel.mk (read when the recipe runs).
$(WWW_PAGES_OBJ): $(WWW_PAGES) apps/http_pages.h apps/http_server.h
	$(KERNEL_CC) $(KERNEL_CFLAGS) -c $< -o $@

KERNEL_EXTRA_OBJS += $(WWW_PAGES_OBJ)
