#include "server/pki/openssl_handles.h"

#include <array>
#include <stdexcept>
#include <string>

#include <openssl/err.h>

namespace kapi::pki {

void throw_openssl_error(std::string_view what) {
  std::string message(what);
  const char* separator = ": ";
  while (unsigned long code = ERR_get_error()) {
    std::array<char, 256> reason{};
    ERR_error_string_n(code, reason.data(), reason.size());
    message += separator;
    message += reason.data();
    separator = "; ";
  }
  throw std::runtime_error(message);
}

}  // namespace kapi::pki
