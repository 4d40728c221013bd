/* libFuzzer target for the profile loader: any bytes must either load into
 * a profile or give one FILE:LINE:COL error, without crashes, leaks or
 * undefined behaviour (built with ASan+UBSan). Includes are refused by
 * profile_load_string, so the fuzzer never reads files. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mb_error err = { "" };
	struct profile *p = NULL;

	mb_log_set_level(LOG_EMERG);
	if (profile_load_string("fuzz.yaml", (const char *)data, size, &p, &err) == 0) {
		char *json = profile_smoke_json(p);

		free(json);
		profile_free(p);
	} else if (strncmp(err.msg, "fuzz.yaml:", 10) != 0) {
		abort(); /* every error must name the file and a position */
	}
	return 0;
}
