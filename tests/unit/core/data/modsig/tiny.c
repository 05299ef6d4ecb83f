// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
static int __init tiny_init(void) { return 0; }
static void __exit tiny_exit(void) { }
module_init(tiny_init);
module_exit(tiny_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rdnafix test fixture: an unsigned out-of-tree module");
