// SPDX-License-Identifier: GPL-2.0
/* kvm-amd.ko, the list spelled "kvm-amd": modpost compares the file's basename byte
 * for byte and grants it. */
#include <linux/module.h>

extern int sev_firmware_supported_vm_types(void);
static void *ksc_used[] __used = { sev_firmware_supported_vm_types };

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test: kvm-amd.ko against module:kvm-amd");
