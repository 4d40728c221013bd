// SPDX-License-Identifier: GPL-2.0
/*
 * check-sign's test module: does nothing but say it loaded, so the guest's
 * log shows which copy (signed or unsigned) the kernel accepted.
 */
#include <linux/init.h>
#include <linux/module.h>

static int __init mmbatch_signtest_init(void)
{
	pr_info("mmbatch_signtest: loaded\n");
	return 0;
}

static void __exit mmbatch_signtest_exit(void)
{
	pr_info("mmbatch_signtest: unloaded\n");
}

module_init(mmbatch_signtest_init);
module_exit(mmbatch_signtest_exit);
MODULE_DESCRIPTION("mmbatch module signing test (check-sign)");
MODULE_LICENSE("GPL");
