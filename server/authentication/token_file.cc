#include "server/authentication/token_file.h"

#include <cctype>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>

namespace kapi::authentication {

std::vector<std::vector<std::string>> read_csv(std::string_view text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  std::size_t line = 1;
  bool quoted = false;       // inside a quoted field
  bool field_started = false;  // the current record has a field in progress (a blank line has none)
  auto end_field = [&] {
    record.push_back(std::move(field));
    field.clear();
  };
  auto end_record = [&] {
    if (field_started || !record.empty()) {
      end_field();
      records.push_back(std::move(record));
      record.clear();
    }
    field_started = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
        if (i + 1 < text.size() && text[i + 1] != ',' && text[i + 1] != '\n' && text[i + 1] != '\r')
          throw TokenFileError("parse error on line " + std::to_string(line) + ": extraneous or missing \" in quoted-field");
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    switch (c) {
      case '"':
        if (!field.empty())
          throw TokenFileError("parse error on line " + std::to_string(line) + ": bare \" in non-quoted-field");
        quoted = true;
        field_started = true;
        break;
      case ',':
        field_started = true;
        end_field();
        break;
      case '\r':
        if (i + 1 < text.size() && text[i + 1] == '\n') break;
        field += c;
        break;
      case '\n':
        end_record();
        ++line;
        break;
      default:
        field_started = true;
        field += c;
    }
  }
  if (quoted) throw TokenFileError("parse error on line " + std::to_string(line) + ": extraneous or missing \" in quoted-field");
  end_record();
  return records;
}

TokenFileAuthenticator TokenFileAuthenticator::parse(std::string_view csv, const std::string& path,
                                                     std::vector<std::string>* warnings) {
  TokenFileAuthenticator authenticator;
  std::size_t record_number = 0;
  for (auto& record : read_csv(csv)) {
    if (record.size() < 3)
      throw TokenFileError("token file '" + path + "' must have at least 3 columns (token, user name, user uid), found " +
                           std::to_string(record.size()));
    ++record_number;
    if (record[0].empty()) {
      if (warnings)
        warnings->push_back("empty token has been found in token file '" + path + "', record number '" +
                            std::to_string(record_number) + "'");
      continue;
    }
    UserInfo user;
    user.name = record[1];
    user.uid = record[2];
    if (record.size() >= 4) {
      // strings.Split: "a,b" → [a b]; an empty field is one empty group, as in kube.
      std::string_view groups = record[3];
      for (std::size_t start = 0;;) {
        const std::size_t comma = groups.find(',', start);
        user.groups.emplace_back(groups.substr(start, comma - start));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
    }
    if (authenticator.users_.contains(record[0]) && warnings)
      warnings->push_back("duplicate token has been found in token file '" + path + "', record number '" +
                          std::to_string(record_number) + "'");
    authenticator.users_[record[0]] = std::move(user);
  }
  return authenticator;
}

TokenFileAuthenticator TokenFileAuthenticator::read(const std::filesystem::path& path,
                                                    std::vector<std::string>* warnings) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::string reason = std::error_code(errno, std::generic_category()).message();  // Go's wording is lower case
    if (!reason.empty()) reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
    throw TokenFileError("open " + path.string() + ": " + reason);
  }
  std::ostringstream text;
  text << file.rdbuf();
  return parse(text.str(), path.string(), warnings);
}

asio::awaitable<Result> TokenFileAuthenticator::authenticate_token(std::string_view token, const Audiences&) const {
  auto found = users_.find(std::string(token));
  if (found == users_.end()) co_return Result::not_applicable();
  co_return Result::authenticated(found->second);
}

}  // namespace kapi::authentication
