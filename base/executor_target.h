#pragma once
// asio::any_io_executor::target<T>() in Asio 1.22 casts to T whatever the executor holds (later Asio checks the
// type first); this checks it, as std::function::target does.
#include <asio/any_io_executor.hpp>

#include <typeinfo>

namespace kapi::base {

template <typename Executor>
const Executor* executor_target(const asio::any_io_executor& executor) {
  return executor && executor.target_type() == typeid(Executor) ? executor.target<Executor>() : nullptr;
}

}  // namespace kapi::base
