// Precompiled header (meson cpp_pch): the standard, Asio and Boost.JSON headers nearly every translation unit
// includes, parsed once per target instead of once per file. It holds only third-party headers, so a change
// to kapi's own code never rebuilds it; every source still includes what it uses.
#ifndef KAPI_PCH_KAPI_PCH_H
#define KAPI_PCH_KAPI_PCH_H

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <boost/json.hpp>

#endif
