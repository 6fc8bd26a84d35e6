/* The README's example, built exactly as the README says (make test-host). */
#include <mm.h>
#include <mm_host.h>
#include <stdio.h>

int main(void)
{
	int cpu_node[2] = {0, 1}; /* CPU 0 on node 0, CPU 1 on node 1 */
	if (mm_host_boot(2, 64 << 20, 2, cpu_node))
		return 1;
	if (mm_host_set_cpu(1)) /* this thread is CPU 1 */
		return 1;
	struct page *p = alloc_pages(GFP_KERNEL | __GFP_ZERO, 3); /* 32 KiB */
	int nid = page_to_nid(p);
	printf("32 KiB at %p on node %d\n", page_address(p), nid);
	__free_pages(p, 3);
	char buf[1024];
	numastat_text(buf, sizeof(buf));
	fputs(buf, stdout);
	mm_host_shutdown();
	return nid == 1 ? 0 : 1;
}
