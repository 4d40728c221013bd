/* Giving up a capability for good, without libcap: the daemon needs
 * CAP_NET_ADMIN only to open and register its taskstats socket (the
 * registration is per socket and the socket lives as long as the daemon), so
 * it drops it right after that. Under mmbatchd.service it never has it (the
 * socket comes from the fd store, watchstore.h): there this finds the
 * capability in no set and calls no capset(2), which the unit refuses. Dropped from the effective, permitted,
 * inheritable and ambient sets (capset(2) and prctl(2): no privilege needed,
 * nothing can raise the permitted set again) and from the bounding set when
 * CAP_SETPCAP allows it. no_new_privs is set first: without CAP_SETPCAP
 * (mmbatchd.service does not grant it) the bounding set keeps the bit, and
 * only no_new_privs stops an execve(2) as root from getting it back. */
#ifndef MMBATCHD_CAPS_H
#define MMBATCHD_CAPS_H

#include <stdbool.h>

/* Drops capability cap (CAP_*) from every set as above. Returns 0 when the
 * process holds it in no set but (without CAP_SETPCAP) the bounding one, or a
 * negative errno. */
int caps_drop(int cap);

/* Whether cap is in the effective set (tests; false on error). */
bool caps_have(int cap);

#endif
