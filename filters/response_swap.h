#pragma once
// A stage that decorates the response writer: the stages after it write through the decorator, and the exchange
// gets its own writer back on every way out.
#include "filters/filter.h"

namespace kapi::filters {

class ResponseSwap {
 public:
  ResponseSwap(Exchange& exchange, http::ResponseWriter& decorator) : exchange_(exchange), own_(exchange.response) {
    exchange.response = &decorator;
  }
  ~ResponseSwap() { exchange_.response = own_; }
  ResponseSwap(const ResponseSwap&) = delete;
  ResponseSwap& operator=(const ResponseSwap&) = delete;

 private:
  Exchange& exchange_;
  http::ResponseWriter* own_;
};

}  // namespace kapi::filters
