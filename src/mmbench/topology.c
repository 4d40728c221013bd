/* The "system" object: kernel release, config hash, CPUs, NUMA nodes, THP. */
#include "topology.h"
#include "counters.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

int mb_memory_nodes(uint64_t *ret_mask)
{
	char line[256];
	int r;

	/* has_memory lists nodes with any memory; older kernels only have "online" */
	r = mb_read_line("/sys/devices/system/node/has_memory", line, sizeof(line));
	if (r < 0)
		r = mb_read_line("/sys/devices/system/node/online", line, sizeof(line));
	if (r < 0) {
		*ret_mask = 1; /* no NUMA support compiled in: one node */
		return 1;
	}
	return mb_parse_list(line, ret_mask);
}

int mb_two_nodes(int *ret_a, int *ret_b, int *ret_count)
{
	uint64_t mask;
	int count, a = -1, b = -1;

	count = mb_memory_nodes(&mask);
	if (count < 0)
		return count;
	*ret_count = count;
	for (int i = 0; i < 64; i++) {
		if (!(mask & (1ULL << i)))
			continue;
		if (a < 0)
			a = i;
		else if (b < 0)
			b = i;
	}
	if (b < 0)
		return -ENODEV;
	*ret_a = a;
	*ret_b = b;
	return 0;
}

static void write_config(struct jw *w, const char *release)
{
	char path[320];
	const char *candidates[2];
	char *data;
	size_t len;

	snprintf(path, sizeof(path), "/boot/config-%s", release);
	candidates[0] = path;
	candidates[1] = "/proc/config.gz";
	jw_key(w, "config");
	for (int i = 0; i < 2; i++) {
		char hex[65];

		if (mb_read_file(candidates[i], &data, &len) < 0)
			continue;
		mb_sha256_hex(data, len, hex);
		free(data);
		jw_obj_begin(w);
		jw_kstr(w, "source", candidates[i]);
		jw_kstr(w, "sha256", hex);
		jw_obj_end(w);
		return;
	}
	jw_null(w);
}

static void write_cpu_model(struct jw *w)
{
	char *text, *p;

	jw_key(w, "cpu_model");
	if (mb_read_file("/proc/cpuinfo", &text, NULL) < 0) {
		jw_null(w);
		return;
	}
	p = strstr(text, "model name");
	if (p && (p = strchr(p, ':'))) {
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		p[strcspn(p, "\n")] = '\0';
		jw_str(w, p);
	} else {
		jw_null(w);
	}
	free(text);
}

static void write_nodes(struct jw *w)
{
	uint64_t mask;
	int count = mb_memory_nodes(&mask);

	jw_key(w, "numa_nodes");
	jw_arr_begin(w);
	for (int i = 0; count > 0 && i < 64; i++) {
		char path[128], cpus[256], *meminfo;
		uint64_t kib = 0;

		if (!(mask & (1ULL << i)))
			continue;
		jw_obj_begin(w);
		jw_kint(w, "node", i);
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", i);
		if (mb_read_line(path, cpus, sizeof(cpus)) < 0)
			snprintf(cpus, sizeof(cpus), "0-%d", mb_online_cpus() - 1);
		jw_kstr(w, "cpus", cpus);
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", i);
		if (mb_read_file(path, &meminfo, NULL) == 0) {
			char *p = strstr(meminfo, "MemTotal:");

			if (p)
				sscanf(p, "MemTotal: %llu", (unsigned long long *)&kib);
			free(meminfo);
		}
		jw_ku64(w, "mem_kib", kib);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

void mb_write_system(struct jw *w)
{
	struct utsname u;
	char thp[128];

	uname(&u);
	jw_key(w, "system");
	jw_obj_begin(w);
	jw_kstr(w, "kernel_release", u.release);
	jw_kstr(w, "kernel_version", u.version);
	jw_kstr(w, "machine", u.machine);
	jw_kstr(w, "hostname", u.nodename);
	write_config(w, u.release);
	write_cpu_model(w);
	jw_kint(w, "cpus_online", mb_online_cpus());
	write_nodes(w);
	jw_key(w, "thp_enabled");
	if (mb_read_line("/sys/kernel/mm/transparent_hugepage/enabled", thp, sizeof(thp)) == 0)
		jw_str(w, thp);
	else
		jw_null(w);
	jw_key(w, "numa_balancing");
	if (mb_read_line("/proc/sys/kernel/numa_balancing", thp, sizeof(thp)) == 0)
		jw_str(w, thp);
	else
		jw_null(w);
	jw_kbool(w, "lock_stat", access("/proc/lock_stat", R_OK) == 0);
	jw_obj_end(w);
}

/* SHA-256 (FIPS 180-4), small and self-contained so the static binary needs
 * no crypto library. */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, hh;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0]; b = h[1]; c = h[2]; d = h[3]; e = h[4]; f = h[5]; g = h[6]; hh = h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));

		hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

void mb_sha256_hex(const void *data, size_t len, char out[65])
{
	uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	const unsigned char *p = data;
	unsigned char tail[128] = { 0 };
	size_t full = len / 64 * 64, rest = len - full, tail_len;
	uint64_t bits = (uint64_t)len * 8;

	for (size_t i = 0; i < full; i += 64)
		sha256_block(h, p + i);
	memcpy(tail, p + full, rest);
	tail[rest] = 0x80;
	tail_len = rest + 1 + 8 <= 64 ? 64 : 128;
	for (int i = 0; i < 8; i++)
		tail[tail_len - 1 - i] = (unsigned char)(bits >> (8 * i));
	for (size_t i = 0; i < tail_len; i += 64)
		sha256_block(h, tail + i);
	for (int i = 0; i < 8; i++)
		snprintf(out + 8 * i, 9, "%08x", h[i]);
}
