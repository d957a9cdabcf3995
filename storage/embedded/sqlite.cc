#include "storage/embedded/sqlite.h"

#include <utility>

namespace kapi::storage::embedded::sqlite {
namespace {

[[noreturn]] void fail(sqlite3* db, int rc, std::string_view what) {
  std::string message(what);
  message += ": ";
  message += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  throw SqliteError(rc, message);
}

}  // namespace

Statement::~Statement() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

void Statement::check(int rc) const {
  if (rc != SQLITE_OK) fail(db_, rc, "sqlite bind");
}

Statement& Statement::bind(int index, std::int64_t value) {
  check(sqlite3_bind_int64(stmt_, index, value));
  return *this;
}

Statement& Statement::bind_blob(int index, std::string_view value) {
  // A zero-length blob must still be a blob, not NULL: pass a non-null pointer.
  static constexpr char kEmpty = 0;
  check(sqlite3_bind_blob64(stmt_, index, value.empty() ? &kEmpty : value.data(), value.size(), SQLITE_TRANSIENT));
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  const std::string sql = sqlite3_sql(stmt_) != nullptr ? sqlite3_sql(stmt_) : "";
  sqlite3_reset(stmt_);
  fail(db_, rc, "sqlite step (" + sql + ")");
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::int64_t Statement::column_int(int index) const { return sqlite3_column_int64(stmt_, index); }

std::string_view Statement::column_blob_view(int index) const {
  const void* data = sqlite3_column_blob(stmt_, index);
  const int size = sqlite3_column_bytes(stmt_, index);
  if (data == nullptr || size <= 0) return {};
  return {static_cast<const char*>(data), static_cast<std::size_t>(size)};
}

std::string Statement::column_blob(int index) const { return std::string(column_blob_view(index)); }

Database::Database(const std::filesystem::path& file) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(file.c_str(), &raw,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  db_.reset(raw);  // sqlite3_open_v2 returns a handle even on failure; it must be closed
  if (rc != SQLITE_OK) fail(raw, rc, "sqlite open " + file.string());
  sqlite3_extended_result_codes(raw, 1);
}

void Database::exec(const std::string& sql) {
  char* error = nullptr;
  const int rc = sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string message = "sqlite exec (" + sql + "): " + (error != nullptr ? error : sqlite3_errstr(rc));
    sqlite3_free(error);
    throw SqliteError(rc, message);
  }
}

Statement& Database::cached(const std::string& sql) {
  if (auto it = statements_.find(sql); it != statements_.end()) {
    it->second->reset();
    return *it->second;
  }
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(db_.get(), sql.c_str(), int(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt,
                                    nullptr);
  if (rc != SQLITE_OK) fail(db_.get(), rc, "sqlite prepare (" + sql + ")");
  auto [it, inserted] = statements_.emplace(sql, std::make_unique<Statement>(db_.get(), stmt));
  return *it->second;
}

Transaction::Transaction(Database& db, std::string_view begin) : db_(db) { db_.exec(std::string(begin)); }

Transaction::~Transaction() {
  if (!open_) return;
  try {
    db_.exec("ROLLBACK");
  } catch (const SqliteError&) {
    // SQLite may already have rolled back on its own (e.g. after an I/O error); nothing left to undo.
  }
}

void Transaction::commit() {
  db_.exec("COMMIT");
  open_ = false;
}

}  // namespace kapi::storage::embedded::sqlite
