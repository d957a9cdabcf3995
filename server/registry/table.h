#pragma once
// Server-side printing (meta.k8s.io/v1 Table): the columns a resource prints and the helpers its printer uses.
// Each resource's printer lives with the resource (server/apis/...); the default is kube's generic convertor.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::registry {

struct TableColumn {
  std::string name;  // "Name", "Data", "Age"
  std::string type;  // "string", "integer", "date", ...
  std::string format;  // "name" for the first column
  std::string description;
  int priority = 0;  // 1: shown with -o wide only
};

// kube's duration.HumanDuration: "45s", "3m20s", "5h", "12d", "2y30d".
std::string human_duration(std::chrono::seconds elapsed);
// The Age cell of an object: human_duration since metadata.creationTimestamp ("<unknown>" without one).
std::string age_of(const boost::json::object& object);

// The columns and cells of kube's default TableConvertor (Name, Created At) for resources without a printer.
std::vector<TableColumn> default_table_columns();
boost::json::array default_table_cells(const boost::json::object& object);

// The column kube's printers open with, and their Age column.
TableColumn name_column();
TableColumn age_column();

}  // namespace kapi::registry
