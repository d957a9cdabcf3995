#pragma once
// --token-auth-file (pkg/authentication/token/tokenfile): static bearer tokens from a CSV file whose records are
// token,user,uid[,"group1,group2"]. Read once at start, as kube-apiserver does.
#include "server/authentication/authenticator.h"

#include <filesystem>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace kapi::authentication {

class TokenFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class TokenFileAuthenticator final : public TokenAuthenticator {
 public:
  // Throws TokenFileError with kube's wording for a file that cannot be read or a record of fewer than 3 fields.
  // Records with an empty token are skipped and a later duplicate wins (kube logs both); `warnings` gets them.
  static TokenFileAuthenticator read(const std::filesystem::path& path, std::vector<std::string>* warnings = nullptr);
  static TokenFileAuthenticator parse(std::string_view csv, const std::string& path,
                                      std::vector<std::string>* warnings = nullptr);

  // An unknown token is not this authenticator's (the bearer token stage turns that into "invalid bearer token").
  // Audience-agnostic: RequestAuthenticator applies the API audiences to its users (kube's
  // WrapAudienceAgnosticToken).
  asio::awaitable<Result> authenticate_token(std::string_view token, const Audiences& audiences) const override;
  asio::awaitable<Result> authenticate_token(std::string_view token) const {
    static const Audiences kAnyAudience;  // outlives the awaitable, unlike a braced temporary
    return authenticate_token(token, kAnyAudience);
  }

  std::size_t size() const { return users_.size(); }

 private:
  std::unordered_map<std::string, UserInfo> users_;
};

// The records of a CSV text as Go's encoding/csv reads them (RFC 4180 quoting, "" inside quotes, blank lines
// skipped, any number of fields per record). Throws TokenFileError on a bare or unterminated quote.
std::vector<std::vector<std::string>> read_csv(std::string_view text);

}  // namespace kapi::authentication
