/*
 * vsl_features IFNAME: prints the offloads Linux has switched on for a
 * network interface, one line, so the side-by-side benchmark
 * (tools/bench-vs-linux) can say which offloads the Linux guest used:
 *
 *   vslinux: features eth0 rx-checksum tx-checksum-ip-generic ...
 *
 * The names are the kernel's own (the ones `ethtool -k` shows, from the
 * ETH_SS_FEATURES string set); only features that are active are named.
 * busybox has no ethtool and Debian's needs shared libraries, so the
 * initramfs carries this instead: three SIOCETHTOOL requests (the size of
 * the string set, its names, the feature words).
 *
 * Built on the host with `gcc -O2 -static` (tools/build-linux-guest).
 */
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* One SIOCETHTOOL request on ifname with data; 0 or -1. */
static int ethtool(int fd, const char *ifname, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr);
}

/* How many feature names the kernel has (ETH_SS_FEATURES); 0 on error. */
static uint32_t feature_count(int fd, const char *ifname)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} info = {.hdr = {.cmd = ETHTOOL_GSSET_INFO,
			  .sset_mask = 1ULL << ETH_SS_FEATURES}};

	if (ethtool(fd, ifname, &info) < 0 || !info.hdr.sset_mask)
		return 0;
	return info.len;
}

int main(int argc, char **argv)
{
	const char *ifname = argc > 1 ? argv[1] : "eth0";
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	uint32_t n = fd < 0 ? 0 : feature_count(fd, ifname);
	uint32_t words = (n + 31) / 32;
	struct ethtool_gstrings *names =
		calloc(1, sizeof(*names) + (size_t)n * ETH_GSTRING_LEN);
	struct ethtool_gfeatures *feats = calloc(
		1, sizeof(*feats) +
			   words * sizeof(struct ethtool_get_features_block));

	if (!n || !names || !feats) {
		printf("vslinux: features %s unknown\n", ifname);
		return 1;
	}
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_FEATURES;
	names->len = n;
	feats->cmd = ETHTOOL_GFEATURES;
	feats->size = words;
	if (ethtool(fd, ifname, names) < 0 || ethtool(fd, ifname, feats) < 0) {
		printf("vslinux: features %s unknown\n", ifname);
		return 1;
	}
	printf("vslinux: features %s", ifname);
	for (uint32_t i = 0; i < n; i++) {
		char name[ETH_GSTRING_LEN + 1] = {0};

		if (!(feats->features[i / 32].active & (1u << (i % 32))))
			continue;
		memcpy(name, names->data + (size_t)i * ETH_GSTRING_LEN,
		       ETH_GSTRING_LEN);
		printf(" %s", name);
	}
	printf("\n");
	close(fd);
	return 0;
}
