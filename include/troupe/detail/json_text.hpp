#pragma once

// Text forms shared by json_writer and json_reader: ISO 8601 time stamps,
// base64 and durations with a unit.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace troupe::detail {

/// "2024-05-01T12:30:00.25Z" for `ticks` since 1970-01-01T00:00:00Z, with
/// `ticks_per_second` one of 1, 10^3, 10^6, 10^9. False outside the years
/// 0000 to 9999.
bool format_iso8601(int64_t ticks, intmax_t ticks_per_second, std::string& out);

/// Reads "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)" into ticks since
/// the epoch; returns an empty string or what was wrong.
std::string parse_iso8601(std::string_view str, intmax_t ticks_per_second, __int128& ticks);

/// RFC 4648 base64 with padding.
void append_base64(std::string& out, std::span<const std::byte> bytes);

/// Strict base64: the alphabet, padding to a multiple of 4, unused bits zero.
/// Returns an empty string or what was wrong.
std::string decode_base64(std::string_view str, std::vector<std::byte>& out);

/// Reads "<integer><unit>" (ns, us, ms, s, min, h) as a count of ticks of
/// num/den seconds, exactly; returns an empty string or what was wrong.
std::string parse_duration_text(std::string_view str, intmax_t num, intmax_t den,
                                __int128& count);

} // namespace troupe::detail
