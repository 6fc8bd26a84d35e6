/*
 * Sampling the allocators over time (host world only), for pictures of
 * fragmentation and of the per-CPU lists while a program runs.
 *
 * A sampler thread writes one line of JSON per interval to a file:
 *
 *   {"t_ms": 12.5, "label": null, "buddyinfo": {...}, "zoneinfo": {...},
 *    "numastat": {...}, "page_frag": {...}, "slabinfo": {...}}
 *
 * the same objects as the kernel's /stats.json (mm_stats.h, slab.h,
 * page_frag.h). tools/mm-plot draws them: free blocks per order against
 * time per node, per-CPU list occupancy per CPU.
 *
 * No code is needed: a program that calls mm_host_boot() and runs with
 * MM_SAMPLE=FILE in its environment is sampled from the end of the boot
 * to mm_host_shutdown() (MM_SAMPLE_MS=N sets the interval, default 10).
 * tools/mm-sample -- ./a.out does that and draws the pictures. With code,
 * a program chooses the window itself and labels its phases:
 *
 *	mm_sample_start("samples.jsonl", 10);
 *	mm_sample_mark("fill");          // a sample now, labelled
 *	...
 *	mm_sample_stop();
 *
 * Reading the statistics takes each zone's, per-CPU list's and cache
 * node's lock briefly, one at a time, as /stats.json does in the kernel:
 * the program's threads see the sampler as one more reader.
 */
#ifndef MM_HOST_SAMPLE_H
#define MM_HOST_SAMPLE_H

/*
 * mm_sample_start - start the sampler thread, writing (truncating) path
 * and taking a sample every interval_ms (1..10000) milliseconds. Call
 * after mm_host_boot(). Returns 0, or -1 with a message on stderr (bad
 * interval, the file cannot be opened, already sampling).
 */
int mm_sample_start(const char *path, unsigned int interval_ms);

/*
 * mm_sample_mark - take one sample now with "label": label (a phase
 * name; quotes and backslashes are dropped). Any thread. Does nothing if
 * the sampler is not running.
 */
void mm_sample_mark(const char *label);

/*
 * mm_sample_stop - take a last sample, stop the thread and close the
 * file. Safe when not sampling. mm_host_shutdown() calls it.
 */
void mm_sample_stop(void);

/*
 * mm_sample_from_env - mm_sample_start(getenv("MM_SAMPLE"),
 * getenv("MM_SAMPLE_MS") or 10) if MM_SAMPLE is set; mm_host_boot()
 * calls it once the allocators are up.
 */
void mm_sample_from_env(void);

#endif /* MM_HOST_SAMPLE_H */
