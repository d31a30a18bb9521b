/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The report wing (doc/architecture.md): the export surface of a tree (ksc-audit.c) and
 * the changes between two kernels (ksc-diff.c). The top of the library: it reads whole
 * trees and kernels through the wings below.
 */
#pragma once

#include "tree/tree.h"
