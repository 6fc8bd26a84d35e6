/*
 * Large TCP segments (net/lwip-patches/0014, LWIP_HOOK_TCP_SEG_MAX): with
 * the hook answering several MSS, tcp_write builds segments that long,
 * IP leaves them whole for the device to cut, and tcp_output splits one
 * that does not fit the window at a multiple of the MSS -- without a copy
 * where the data is held by reference, with one where the segment owns
 * its bytes -- so slow start, a timeout's one-MSS window and the peer's
 * window are kept. Every byte that leaves is checked against what was
 * written. Run by tests/lwip/main.c after lwIP's own suites (whose tests
 * run with the hook answering 0: nothing changes for them).
 */
#include <string.h>

#include "lwip/priv/tcp_priv.h"
#include "lwip/stats.h"
#include "lwip/tcp.h"
#include "tcp/tcp_helper.h"
#include "test_tcp_large.h"

#define SEGS  4			/* MSS per large segment */
#define IPTCP 40		/* IPv4 and TCP headers, no options */
#define MTU   (TCP_MSS + IPTCP) /* lwIP's MSS is the one the MTU gives */
#define DATA  (8 * TCP_MSS)

static u16_t seg_max_answer;

u16_t test_tcp_seg_max(const struct tcp_pcb *pcb)
{
	(void)pcb;
	return seg_max_answer;
}

static struct netif netif;
static struct test_tcp_txcounters tx;
static struct test_tcp_counters counters;
static u8_t data[DATA];
static struct netif *old_list, *old_default;

static void setup(void)
{
	old_list = netif_list;
	old_default = netif_default;
	netif_list = NULL;
	netif_default = NULL;
	tcp_remove_all();
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (u8_t)(i * 7 + (i >> 8));
	test_tcp_init_netif(&netif, &tx, &test_local_ip, &test_netmask);
	netif.mtu = MTU;
	tx.copy_tx_packets = 1;
	memset(&counters, 0, sizeof(counters));
	seg_max_answer = SEGS * TCP_MSS;
}

static void teardown(void)
{
	seg_max_answer = 0;
	tcp_remove_all(); /* its resets are captured too: free them after */
	if (tx.tx_packets)
		pbuf_free(tx.tx_packets);
	tx.tx_packets = NULL;
	netif_list = old_list;
	netif_default = old_default;
	lwip_check_ensure_no_alloc(SKIP_POOL(MEMP_SYS_TIMEOUT));
}

/* An established connection that may send cwnd bytes (peer window
 * TCP_WND). */
static struct tcp_pcb *connection(u32_t cwnd)
{
	struct tcp_pcb *pcb = test_tcp_new_counters_pcb(&counters);

	fail_unless(pcb != NULL);
	tcp_set_state(pcb, ESTABLISHED, &test_local_ip, &test_remote_ip,
		      TEST_LOCAL_PORT, TEST_REMOTE_PORT);
	pcb->mss = TCP_MSS;
	pcb->cwnd = (tcpwnd_size_t)cwnd;
	/* congestion avoidance: cwnd grows by one MSS per window acked, so
	 * each test's window stays where it puts it */
	pcb->ssthresh = pcb->mss;
	return pcb;
}

static u8_t flags[8]; /* TCP flags of the datagrams sent() saw */

/* The IP datagrams sent so far (captured back to back in tx.tx_packets):
 * their count, each one's payload length in lens[] and TCP flags in
 * flags[], and their payloads in order compared with data[from...].
 * Clears the capture. */
static int sent(u32_t from, u16_t *lens, int most)
{
	struct pbuf *p = tx.tx_packets;
	u16_t off = 0;
	int n = 0;

	while (p && off < p->tot_len) {
		u8_t hdr[IPTCP];
		u16_t ip_len, pay;
		u8_t got[DATA];

		fail_unless(pbuf_copy_partial(p, hdr, IPTCP, off) == IPTCP);
		ip_len = (u16_t)(hdr[2] << 8 | hdr[3]);
		fail_unless(ip_len >= IPTCP);
		pay = (u16_t)(ip_len - IPTCP);
		fail_unless(pbuf_copy_partial(p, got, pay,
					      (u16_t)(off + IPTCP)) == pay);
		fail_unless(from + pay <= DATA);
		fail_unless(!memcmp(got, data + from, pay),
			    "bytes at %u differ", (unsigned)from);
		if (n < most)
			lens[n] = pay;
		if (n < (int)sizeof(flags))
			flags[n] = hdr[IPTCP - 20 + 13];
		n++;
		from += pay;
		off = (u16_t)(off + ip_len);
	}
	if (tx.tx_packets)
		pbuf_free(tx.tx_packets);
	tx.tx_packets = NULL;
	tx.num_tx_calls = 0;
	return n;
}

static void ack(struct tcp_pcb *pcb, u32_t bytes)
{
	struct pbuf *p = tcp_create_rx_segment(pcb, NULL, 0, 0, bytes, TCP_ACK);

	fail_unless(p != NULL);
	test_tcp_input(p, &netif);
}

/* Eight MSS written one MSS at a time by reference (as the iperf client
 * writes) leave as two datagrams of four MSS, unfragmented: with the
 * hook answering 0 they would be eight. */
START_TEST(test_tcp_large_segments_leave_whole)
{
	struct tcp_pcb *pcb = connection(TCP_WND);
	u16_t lens[4];

	LWIP_UNUSED_ARG(_i);
	for (int i = 0; i < 8; i++)
		fail_unless(tcp_write(pcb, data + i * TCP_MSS, TCP_MSS, 0) ==
			    ERR_OK);
	fail_unless(tcp_output(pcb) == ERR_OK);
	fail_unless(sent(0, lens, 4) == 2);
	fail_unless(lens[0] == SEGS * TCP_MSS && lens[1] == SEGS * TCP_MSS);
	ack(pcb, DATA);
	fail_unless(pcb->unacked == NULL && pcb->unsent == NULL);
}
END_TEST

/* A window of two MSS and a bit, nothing in flight (slow start): the
 * four-MSS segment, one pbuf held by reference, goes as two MSS, split
 * without a copy (the rest points into the caller's buffer), and the rest
 * follows once acknowledged. */
START_TEST(test_tcp_large_split_by_reference_at_the_window)
{
	struct tcp_pcb *pcb = connection(2 * TCP_MSS + 100);
	u16_t lens[4];

	LWIP_UNUSED_ARG(_i);
	fail_unless(tcp_write(pcb, data, SEGS * TCP_MSS, 0) == ERR_OK);
	fail_unless(tcp_output(pcb) == ERR_OK);
	fail_unless(sent(0, lens, 4) == 1);
	fail_unless(lens[0] == 2 * TCP_MSS);
	fail_unless(pcb->unsent != NULL && pcb->unsent->len == 2 * TCP_MSS);
	fail_unless(pcb->unsent->p->next != NULL &&
			    pcb->unsent->p->next->payload == data + 2 * TCP_MSS,
		    "the rest was copied");
	pcb->cwnd = TCP_WND;
	ack(pcb, 2 * TCP_MSS);
	fail_unless(sent(2 * TCP_MSS, lens, 4) == 1);
	fail_unless(lens[0] == 2 * TCP_MSS);
	ack(pcb, 2 * TCP_MSS);
	fail_unless(pcb->unacked == NULL && pcb->unsent == NULL);
}
END_TEST

/* Copied data (one PBUF_RAM of four MSS) cannot be split in place: the
 * rest is copied, and every byte still arrives in order. */
START_TEST(test_tcp_large_split_of_copied_data)
{
	struct tcp_pcb *pcb = connection(TCP_MSS + 10);
	u16_t lens[4];

	LWIP_UNUSED_ARG(_i);
	fail_unless(tcp_write(pcb, data, SEGS * TCP_MSS, TCP_WRITE_FLAG_COPY) ==
		    ERR_OK);
	fail_unless(pcb->unsent != NULL && pcb->unsent->len == SEGS * TCP_MSS);
	fail_unless(tcp_output(pcb) == ERR_OK);
	fail_unless(sent(0, lens, 4) == 1);
	fail_unless(lens[0] == TCP_MSS);
	pcb->cwnd = TCP_WND;
	ack(pcb, TCP_MSS);
	fail_unless(sent(TCP_MSS, lens, 4) == 1);
	fail_unless(lens[0] == 3 * TCP_MSS);
	ack(pcb, 3 * TCP_MSS);
	fail_unless(pcb->unacked == NULL && pcb->unsent == NULL);
}
END_TEST

/* A FIN queued on a large segment stays at the end of the stream when
 * the segment is split, by reference or by copy: lwIP 2.1.3's own split
 * left it on the head too, and the peer saw the stream end early. */
static void fin_stays_last(u8_t copy)
{
	struct tcp_pcb *pcb = connection(TCP_MSS + 10);
	u16_t lens[4];

	fail_unless(tcp_write(pcb, data, SEGS * TCP_MSS - 100, copy) == ERR_OK);
	fail_unless(tcp_close(pcb) ==
		    ERR_OK); /* FIN on the last segment, output */
	fail_unless(sent(0, lens, 4) == 1 && lens[0] == TCP_MSS);
	fail_unless(!(flags[0] & (TCP_FIN | TCP_PSH)), "flags %x on the head",
		    flags[0]);
	pcb->cwnd = TCP_WND;
	ack(pcb, TCP_MSS);
	fail_unless(sent(TCP_MSS, lens, 4) == 1 &&
		    lens[0] == 3 * TCP_MSS - 100);
	fail_unless(flags[0] & TCP_FIN, "no FIN at the end: flags %x",
		    flags[0]);
}

START_TEST(test_tcp_large_split_by_reference_keeps_fin_last)
{
	LWIP_UNUSED_ARG(_i);
	fin_stays_last(0);
}
END_TEST

START_TEST(test_tcp_large_split_by_copy_keeps_fin_last)
{
	LWIP_UNUSED_ARG(_i);
	fin_stays_last(TCP_WRITE_FLAG_COPY);
}
END_TEST

/* After a timeout the window is one MSS: the unacknowledged large
 * segment is sent again one MSS at a time, from the first lost byte. */
START_TEST(test_tcp_large_retransmission_after_a_timeout_is_one_mss)
{
	struct tcp_pcb *pcb = connection(TCP_WND);
	u16_t lens[4];

	LWIP_UNUSED_ARG(_i);
	fail_unless(tcp_write(pcb, data, SEGS * TCP_MSS, 0) == ERR_OK);
	fail_unless(tcp_output(pcb) == ERR_OK);
	fail_unless(sent(0, lens, 4) == 1 && lens[0] == SEGS * TCP_MSS);
	pcb->cwnd = pcb->mss; /* what tcp_slowtmr sets on a timeout */
	tcp_rexmit_rto(pcb);
	fail_unless(sent(0, lens, 4) == 1);
	fail_unless(lens[0] == TCP_MSS);
	pcb->cwnd = TCP_WND;
	ack(pcb, TCP_MSS);
	fail_unless(sent(TCP_MSS, lens, 4) == 1 && lens[0] == 3 * TCP_MSS);
	ack(pcb, 3 * TCP_MSS);
	fail_unless(pcb->unacked == NULL && pcb->unsent == NULL);
}
END_TEST

/* Much in flight and less than half the window free: the large segment
 * waits rather than leave in MSS-sized pieces; with half free it is split
 * at a multiple of the MSS. */
START_TEST(test_tcp_large_waits_while_much_is_in_flight)
{
	struct tcp_pcb *pcb = connection(6 * TCP_MSS);
	u16_t lens[4];

	LWIP_UNUSED_ARG(_i);
	fail_unless(tcp_write(pcb, data, DATA, 0) == ERR_OK);
	fail_unless(tcp_output(pcb) == ERR_OK);
	/* four MSS whole; then two of six free, four in flight: wait */
	fail_unless(sent(0, lens, 4) == 1 && lens[0] == SEGS * TCP_MSS);
	fail_unless(pcb->unsent != NULL && pcb->unsent->len == SEGS * TCP_MSS);
	/* three of six free: three MSS go */
	ack(pcb, TCP_MSS);
	fail_unless(sent(SEGS * TCP_MSS, lens, 4) == 1 &&
		    lens[0] == 3 * TCP_MSS);
	ack(pcb, 6 * TCP_MSS);
	fail_unless(sent(7 * TCP_MSS, lens, 4) == 1 && lens[0] == TCP_MSS);
	ack(pcb, TCP_MSS);
	fail_unless(pcb->unacked == NULL && pcb->unsent == NULL);
}
END_TEST

Suite *tcp_large_suite(void)
{
	testfunc tests[] = {
		TESTFUNC(test_tcp_large_segments_leave_whole),
		TESTFUNC(test_tcp_large_split_by_reference_at_the_window),
		TESTFUNC(test_tcp_large_split_of_copied_data),
		TESTFUNC(test_tcp_large_split_by_reference_keeps_fin_last),
		TESTFUNC(test_tcp_large_split_by_copy_keeps_fin_last),
		TESTFUNC(
			test_tcp_large_retransmission_after_a_timeout_is_one_mss),
		TESTFUNC(test_tcp_large_waits_while_much_is_in_flight),
	};
	return create_suite("TCP_LARGE", tests, LWIP_ARRAYSIZE(tests), setup,
			    teardown);
}
