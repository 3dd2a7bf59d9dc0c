#include "qnnrules/report/HtmlReport.h"

#include "HtmlReportPage.h"

namespace qnnrules {

std::string formatHtmlReport(std::string_view reportJson) {
  std::string page(html_page::kBeforeData);
  page.reserve(page.size() + reportJson.size() + html_page::kAfterData.size());
  // '<' occurs in JSON only inside strings, where \u003c means the same character; escaping it
  // keeps "</script>" in a node name from ending the data block.
  for (char c : reportJson) {
    if (c == '<')
      page += "\\u003c";
    else
      page += c;
  }
  page += html_page::kAfterData;
  return page;
}

}  // namespace qnnrules
