/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A bounded POSIX extended regular expression search (util/ere.c), for patterns read
 * from files someone else wrote: compiled to at most ERE_MAX_PROGRAM instructions
 * (counted repetitions copied out, as glibc does), then run as a Thompson NFA over the
 * text, so memory is O(program) and time O(program x text), whatever the pattern.
 * glibc's regcomp() takes gigabytes and seconds on some 25-byte patterns.
 *
 * Written here because no maintained library gives both POSIX ERE's meaning and a bound:
 * glibc and TRE (libtre) expand counted repetitions into their automaton while compiling,
 * and PCRE2, which has compile and match limits, reads Perl's syntax (backslashes inside
 * brackets, other escapes), so some patterns kmod's regcomp() accepts would match
 * differently. The test against glibc (tests/unit/test-util.c) keeps the two in step.
 *
 * What it reads: literals, '.', bracket expressions with ranges, [:class:], [.c.] and
 * [=c=] (the C locale), '^' and '$' anywhere, groups, '|', '*', '+', '?', {m}, {m,},
 * {,n} and {m,n} (m, n <= 32767, glibc's RE_DUP_MAX), and glibc's \w \W \s \S. An unmatched ')' is an
 * ordinary character, as in glibc. Back-references and glibc's word anchors (\b \B \< \>
 * \` \') are not: such a pattern is refused (-EINVAL) like one glibc cannot compile.
 */
#pragma once

#include <stddef.h>

#define ERE_MAX_PROGRAM 4096 /* instructions: copies of the pattern's parts */
#define ERE_MAX_DEPTH 32     /* nested groups */

/*
 * Does `pattern` match anywhere in `text` (regexec() of regcomp(REG_EXTENDED | REG_NOSUB))?
 * 1 or 0; -EINVAL for a pattern glibc would not compile or this code does not read,
 * -E2BIG past ERE_MAX_PROGRAM, -ELOOP past ERE_MAX_DEPTH, -ENOMEM.
 */
int ere_search(const char *pattern, const char *text);
