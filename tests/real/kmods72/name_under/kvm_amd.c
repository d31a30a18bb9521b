// SPDX-License-Identifier: GPL-2.0
/* kvm_amd.ko, the list spelled "kvm-amd": modpost compares the basename byte
 * for byte and refuses it; the loader (struct module name kvm_amd) grants it. */
#include <linux/module.h>

extern int sev_firmware_supported_vm_types(void);
static void *ksc_used[] __used = { sev_firmware_supported_vm_types };

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ksymcheck test: kvm_amd.ko against module:kvm-amd");
