#pragma once

// The dashboard's page, script and style sheet, compiled into rotarestd from
// src/rest/dashboard/ (CMake writes dashboard_files.cc), so that the daemon
// serves them with no install path to get wrong.

#include <span>
#include <string_view>

namespace rota::rest {

struct DashboardFile {
  std::string_view name;  // "index.html", "dashboard.js", ...
  std::string_view content_type;
  std::string_view body;
};

std::span<const DashboardFile> DashboardFiles();
const DashboardFile* FindDashboardFile(std::string_view name);

}  // namespace rota::rest
