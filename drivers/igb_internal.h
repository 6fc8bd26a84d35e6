/*
 * What the files of the igb driver share: the device and its queue
 * pairs. igb_hw.c brings the part up (models, reset, MAC, link, ring
 * registers, probe) on the register-level steps every Intel gigabit part
 * shares (gbe_hw.h); igb.c is the per-packet path (RX, and the netdev
 * ops), igb_tx.c the TX ring with checksum offload; igb_irq.c the interrupts (MSI-X per
 * queue pair, else MSI or INTx); igb_rss.c spreads flows over the queues;
 * igb_tso.c merges TCP segments for the device to cut again (TSO).
 */
#ifndef DRIVERS_IGB_INTERNAL_H
#define DRIVERS_IGB_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "gbe_hw.h"
#include "igb.h"
#include "igb_regs.h"
#include "netdev.h"
#include "tcp_merge.h"

/* Queue pairs at most: the 82576 and I350 hash into 8 with RSS, and
 * MSI-X has a vector for each of 8 pairs plus the other causes. */
#define IGB_MAX_QUEUES 8

/* The family members, which differ in queue count and IVAR layout. */
enum igb_mac {
	IGB_82576,
	IGB_I350,
	IGB_I210,
	IGB_I211,
};

struct igb_model {
	uint16_t device;
	const char *name;
	enum igb_mac mac;
	int max_queues; /* queue pairs RSS spreads over */
	bool tested;	/* brought up and run here (QEMU's 82576) */
};

/* One RX ring: a page of advanced descriptors and the buffer in each. */
struct igb_rx_ring {
	volatile union igb_rx_desc *desc;
	void *buf[IGB_RX_RING]; /* buffer in each slot, NULL if none */
	uint16_t next;		/* oldest slot the device owns */
	uint16_t tail;		/* next slot to fill (RDT's value) */
	uint16_t posted;	/* slots the device owns */
	bool discard;		/* dropping a frame's remaining buffers */
};

/* One TX ring. A frame takes a context descriptor (when offloaded) and
 * one data descriptor per segment; last[] is set on its first slot. The
 * stack's cookie is on a plain frame's last slot; a merged TSO frame,
 * which takes at least two slots per segment it stands for, keeps its
 * segments' cookies in its first slots, in order. */
struct igb_tx_ring {
	volatile union igb_tx_desc *desc;
	void *cookie[IGB_TX_RING];  /* NULL on a slot that carries none */
	uint16_t last[IGB_TX_RING]; /* on a frame's first slot */
	uint16_t clean;		    /* first slot of the oldest frame */
	uint16_t tail;		    /* next free slot */
	uint16_t tdt;		    /* TDT's value: tail once flushed */
	uint16_t used;		    /* slots the device owns */
	/* TSO (igb_tso.c), NULL without: a merged frame's headers, kept
	 * by its first slot, and the segments held back to merge */
	uint8_t (*tso_hdr)[TCP_MERGE_HDR_MAX];
	struct tcp_merge_batch *batch;
};

/* Queue pair q, allocated on CPU q's node: RX written on CPU q only, TX
 * under the stack's guard. */
struct igb_pair {
	struct igb_rx_ring rx;
	struct igb_tx_ring tx;
	struct igb *owner; /* for the pair's MSI-X handler */
	int q;
};

struct igb {
	struct netdev dev;
	struct gbe_hw hw; /* BAR0, the PCI function, the link report */
	const struct igb_model *model;
	const char *mac_source; /* "ral", "nvm" or "local" */
	uint64_t stats_due_ms;	/* next read of the missed-packet counter */
	bool msix;		/* interrupts by MSI-X (igb_irq.c) */
	/* MSI-X vectors: queue pair q's at q, the other causes' after them */
	int msix_vec[IGB_MAX_QUEUES + 1];
	struct igb_pair *pairs[IGB_MAX_QUEUES]; /* nqueues of them */
};

static inline uint32_t igb_rd32(const struct igb *g, unsigned int reg)
{
	return gbe_rd32(&g->hw, reg);
}

static inline void igb_wr32(struct igb *g, unsigned int reg, uint32_t v)
{
	gbe_wr32(&g->hw, reg, v);
}

/* igb.c: xmit, poll, reap and link state, for netdev_register. */
extern const struct netdev_ops igb_ops;

/*
 * igb_tx.c: the TX ring, for igb.c and igb_tso.c. Under the stack's TX
 * guard. igb_tx_reclaim: finished frames' cookies back to the stack.
 * igb_tx_publish: one TDT write for what was queued. igb_tx_room: are
 * there @need free slots on q (publishing and reaping first when short)?
 * igb_post_frame: queue one frame as it came, with its checksum context;
 * 0, or -1 (counted: busy, or tx_bad_len when malformed or longer than
 * the MTU). igb_tx_put_data: the data
 * descriptors of sg from @slot on, PAYLEN and POPTS on the first, @cmd on
 * each; returns the last slot.
 */
void igb_tx_reclaim(struct igb *g, int q);
void igb_tx_publish(struct igb *g, int q);
bool igb_tx_room(struct igb *g, int q, unsigned int need);
/* The bytes of sg when every piece is one a data descriptor takes (and
 * there are 1 to NETDEV_MAX_SG of them), else 0. */
uint32_t igb_tx_pieces_len(const struct netdev_sg *sg, int nsg);
int igb_post_frame(struct igb *g, int q, const struct netdev_sg *sg, int nsg,
		   void *cookie);
uint16_t igb_tx_put_data(struct igb_tx_ring *t, uint16_t slot,
			 const struct netdev_sg *sg, int nsg, uint32_t paylen,
			 uint32_t popts, uint32_t cmd);

/*
 * igb_tso.c. igb_tso_alloc: queue q's tables on its node (false without
 * memory: the queue sends without TSO); igb_tso_free gives them back.
 * igb_tso_xmit: xmit through the batch. igb_tso_flush: post what the
 * batch holds.
 */
#define IGB_TSO_TABLE_BYTES \
	(IGB_TX_RING * TCP_MERGE_HDR_MAX + sizeof(struct tcp_merge_batch))
bool igb_tso_alloc(struct igb *g, int q);
void igb_tso_free(struct igb *g, int q);
int igb_tso_xmit(struct igb *g, int q, const struct netdev_sg *sg, int nsg,
		 void *cookie);
void igb_tso_flush(struct igb *g, int q);

/* igb_rss.c: the key, the redirection table and MRQC (first call: the
 * default key, entry i -> queue i % nqueues). Context: probe. */
void igb_rss_setup(struct igb *g);
/* The netdev op set_rss_table (see netdev.h). */
int igb_set_rss_table(struct netdev *dev, const uint8_t *table, int n);

/* igb_irq.c: the netdev interrupt operations (see netdev.h). */
int igb_irq_setup(struct netdev *dev);
bool igb_irq_arm(struct netdev *dev, int q);
void igb_irq_disarm(struct netdev *dev, int q);
bool igb_link_changed(struct netdev *dev);

#endif /* DRIVERS_IGB_INTERNAL_H */
