/* See caps.h. */
#include "caps.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The raw syscalls take version 3 headers and two 32-bit words per set. */
static int caps_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };

	return syscall(SYS_capget, &h, d) < 0 ? -errno : 0;
}

bool caps_have(int cap)
{
	struct __user_cap_data_struct d[2];

	return caps_get(d) == 0 && (d[cap / 32].effective & (1u << (cap % 32)));
}

int caps_drop(int cap)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];
	uint32_t bit = 1u << (cap % 32);
	int r;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	/* Needs CAP_SETPCAP, hence before the capset below could drop that
	 * (it never does here, but a caller may drop it next). */
	if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1 && caps_have(CAP_SETPCAP) &&
	    prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
		return -errno;
	/* Ambient capabilities must be in the inheritable set: gone first. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, cap, 0, 0) < 0 && errno != EINVAL)
		return -errno;
	r = caps_get(d);
	if (r < 0)
		return r;
	if (!((d[cap / 32].effective | d[cap / 32].permitted | d[cap / 32].inheritable) & bit))
		return 0;
	d[cap / 32].effective &= ~bit;
	d[cap / 32].permitted &= ~bit;
	d[cap / 32].inheritable &= ~bit;
	return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}
