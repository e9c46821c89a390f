#pragma once

// Preprocessor helpers shared by Troupe's macros.

#define TROUPE_PP_UNPAREN_IMPL(...) __VA_ARGS__
#define TROUPE_PP_UNPAREN(x) TROUPE_PP_UNPAREN_IMPL x
#define TROUPE_PP_STR_IMPL(...) #__VA_ARGS__
#define TROUPE_PP_STR(...) TROUPE_PP_STR_IMPL(__VA_ARGS__)
#define TROUPE_PP_CAT_IMPL(a, b) a##b
#define TROUPE_PP_CAT(a, b) TROUPE_PP_CAT_IMPL(a, b)

/// The third argument: with `__VA_ARGS__, TWO, ONE, none` in front, the
/// macro for one or for two arguments.
#define TROUPE_PP_ARG_3(_1, _2, x, ...) x
