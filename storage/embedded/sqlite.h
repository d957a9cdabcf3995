#pragma once
// A thin RAII layer over the SQLite C API: a connection with a cache of prepared statements, and a statement
// handle that binds, steps and reads columns. Errors become SqliteError. A Database is used by one thread at
// a time (connections are opened with SQLITE_OPEN_NOMUTEX; the store hands each one to a single pool job).
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace kapi::storage::embedded::sqlite {

class SqliteError : public std::runtime_error {
 public:
  SqliteError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Statement(Statement&& other) noexcept
      : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)) {}
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  ~Statement();

  // Binds by 1-based index. Text and blobs are copied (SQLITE_TRANSIENT) so callers may pass temporaries.
  Statement& bind(int index, std::int64_t value);
  Statement& bind_blob(int index, std::string_view value);

  // true while a row is available.
  bool step();
  // Steps a statement that returns no rows.
  void run();
  // Clears bindings and rewinds, ready for reuse.
  void reset();

  std::int64_t column_int(int index) const;
  std::string column_blob(int index) const;
  std::string_view column_blob_view(int index) const;  // valid until the next step/reset

 private:
  void check(int rc) const;
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

class Database {
 public:
  // Opens (creating if needed) a read-write connection.
  explicit Database(const std::filesystem::path& file);
  Database(Database&&) noexcept = default;
  Database& operator=(Database&&) noexcept = default;
  ~Database() = default;

  void exec(const std::string& sql);
  // A prepared statement reused across calls (reset before it is handed out again).
  Statement& cached(const std::string& sql);
  sqlite3* handle() const noexcept { return db_.get(); }

 private:
  struct Closer {
    void operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }
  };
  // Statements are destroyed before the connection: members are destroyed in reverse order.
  std::unique_ptr<sqlite3, Closer> db_;
  std::map<std::string, std::unique_ptr<Statement>, std::less<>> statements_;
};

// BEGIN IMMEDIATE … COMMIT, rolled back by the destructor unless committed.
class Transaction {
 public:
  Transaction(Database& db, std::string_view begin = "BEGIN IMMEDIATE");
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  void commit();

 private:
  Database& db_;
  bool open_ = true;
};

}  // namespace kapi::storage::embedded::sqlite
