/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The report wing (audit, diff) reads whole trees and kernels. */
#include "tree/tree.h"
