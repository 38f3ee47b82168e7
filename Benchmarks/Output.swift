import Foundation

/// Everything one run measured, as written to `--json`.
struct Results: Codable {
  struct RowResult: Codable {
    let scenario: String
    let medianNanoseconds: Double
    let p10Nanoseconds: Double
    let p90Nanoseconds: Double
    let baseline: String
    let baselineNanoseconds: Double
    let ratio: Double
    let budget: String
    let withinBudget: Bool?
    let noisy: Bool
  }

  struct SweepResult: Codable {
    let name: String
    let sizeLabel: String
    let points: [Point]

    struct Point: Codable {
      let size: Int
      let nanoseconds: Double
      let bytesPerItem: Double
    }
  }

  struct FigureResult: Codable {
    let name: String
    let value: Double
    let unit: String
    let limit: Double?
    let withinBudget: Bool?
  }

  let date: String
  let machine: String
  let wallSeconds: Double
  let rows: [RowResult]
  let figures: [FigureResult]
  let sweeps: [SweepResult]
  let summary: String
}

extension Results.FigureResult {
  init(_ figure: Figure) {
    name = figure.name
    value = figure.value
    unit = figure.unit
    limit = figure.limit
    withinBudget = figure.limit == nil ? nil : figure.isWithinBudget
  }
}

extension Results.RowResult {
  init(_ row: Row) {
    scenario = row.scenario
    medianNanoseconds = row.measurement.median
    p10Nanoseconds = row.measurement.p10
    p90Nanoseconds = row.measurement.p90
    baseline = row.baselineName
    baselineNanoseconds = row.baseline.median
    ratio = row.ratio
    budget = row.budget.description
    if case .none = row.budget { withinBudget = nil } else { withinBudget = row.isWithinBudget }
    noisy = row.measurement.isNoisy
  }
}

/// The machine, as a person would name it.
func machineDescription() -> String {
  let info = ProcessInfo.processInfo
  #if arch(x86_64)
    let architecture = "x86_64"
  #elseif arch(arm64)
    let architecture = "arm64"
  #else
    let architecture = "unknown architecture"
  #endif
  return "\(info.operatingSystemVersionString), \(architecture), \(info.activeProcessorCount) cores, "
    + "\(info.physicalMemory / 1_073_741_824) GiB"
}

func writeJSON(_ results: Results, to path: String) throws {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
  try encoder.encode(results).write(to: URL(fileURLWithPath: path))
}

func writeCSV(_ results: Results, to path: String) throws {
  var lines = ["scenario,median_ns,p10_ns,p90_ns,baseline,baseline_ns,ratio,budget,within_budget,noisy"]
  for row in results.rows {
    let fields: [String] = [
      row.scenario, "\(row.medianNanoseconds)", "\(row.p10Nanoseconds)", "\(row.p90Nanoseconds)", row.baseline,
      "\(row.baselineNanoseconds)", "\(row.ratio)", row.budget, row.withinBudget.map { "\($0)" } ?? "",
      "\(row.noisy)",
    ]
    lines.append(fields.map(csvField).joined(separator: ","))
  }
  try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
}

private func csvField(_ field: String) -> String {
  guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return field }
  return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// Draws each sweep as a log-log line chart (time per operation, and bytes per item), side by side.
func writeSVG(_ results: Results, to path: String) throws {
  let panelWidth = 460.0
  let panelHeight = 320.0
  let width = panelWidth * Double(max(1, results.sweeps.count))
  var svg = """
    <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(panelHeight))" \
    font-family="Helvetica, Arial, sans-serif" font-size="12">
    <rect width="100%" height="100%" fill="white"/>

    """
  for (index, sweep) in results.sweeps.enumerated() {
    svg += panel(sweep, x: Double(index) * panelWidth, width: panelWidth, height: panelHeight)
  }
  svg += "</svg>\n"
  try svg.write(toFile: path, atomically: true, encoding: .utf8)
}

private func panel(_ sweep: Results.SweepResult, x originX: Double, width: Double, height: Double) -> String {
  let left = originX + 70
  let right = originX + width - 20
  let top = 40.0
  let bottom = height - 60
  let sizes = sweep.points.map { Double($0.size) }
  let values = sweep.points.flatMap { [$0.nanoseconds, $0.bytesPerItem] }.filter { $0 > 0 }
  guard let minSize = sizes.min(), let maxSize = sizes.max(), let minValue = values.min(),
    let maxValue = values.max()
  else { return "" }
  let xLow = floor(log10(minSize))
  let xHigh = max(xLow + 1, ceil(log10(maxSize)))
  let yLow = floor(log10(minValue))
  let yHigh = max(yLow + 1, ceil(log10(maxValue)))
  func px(_ value: Double) -> Double { left + (log10(value) - xLow) / (xHigh - xLow) * (right - left) }
  func py(_ value: Double) -> Double { bottom - (log10(max(value, 1e-9)) - yLow) / (yHigh - yLow) * (bottom - top) }
  var svg = "<text x=\"\(originX + width / 2)\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">\(sweep.name)</text>\n"
  // Axes, decade grid lines and labels.
  svg += "<line x1=\"\(left)\" y1=\"\(bottom)\" x2=\"\(right)\" y2=\"\(bottom)\" stroke=\"black\"/>\n"
  svg += "<line x1=\"\(left)\" y1=\"\(top)\" x2=\"\(left)\" y2=\"\(bottom)\" stroke=\"black\"/>\n"
  for decade in Int(xLow)...Int(xHigh) {
    let x = px(pow(10, Double(decade)))
    svg += "<line x1=\"\(x)\" y1=\"\(top)\" x2=\"\(x)\" y2=\"\(bottom)\" stroke=\"#ddd\"/>\n"
    svg += "<text x=\"\(x)\" y=\"\(bottom + 16)\" text-anchor=\"middle\">\(decadeLabel(decade))</text>\n"
  }
  for decade in Int(yLow)...Int(yHigh) {
    let y = py(pow(10, Double(decade)))
    svg += "<line x1=\"\(left)\" y1=\"\(y)\" x2=\"\(right)\" y2=\"\(y)\" stroke=\"#ddd\"/>\n"
    svg += "<text x=\"\(left - 6)\" y=\"\(y + 4)\" text-anchor=\"end\">\(decadeLabel(decade))</text>\n"
  }
  svg +=
    "<text x=\"\((left + right) / 2)\" y=\"\(bottom + 36)\" text-anchor=\"middle\">\(sweep.sizeLabel) (log)</text>\n"
  svg +=
    "<text x=\"\(originX + 16)\" y=\"\((top + bottom) / 2)\" text-anchor=\"middle\" "
    + "transform=\"rotate(-90 \(originX + 16) \((top + bottom) / 2))\">ns per operation, bytes per item (log)</text>\n"
  // The two series and the legend.
  let series: [(String, String, (Results.SweepResult.Point) -> Double)] = [
    ("ns per operation", "#1f77b4", { $0.nanoseconds }),
    ("bytes per item", "#d62728", { $0.bytesPerItem }),
  ]
  for (index, (label, color, value)) in series.enumerated() {
    let points = sweep.points.filter { value($0) > 0 }.map { "\(px(Double($0.size))),\(py(value($0)))" }
    svg +=
      "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>\n"
    for point in points {
      let xy = point.split(separator: ",")
      svg += "<circle cx=\"\(xy[0])\" cy=\"\(xy[1])\" r=\"3\" fill=\"\(color)\"/>\n"
    }
    let legendY = top + 4 + Double(index) * 16
    svg +=
      "<line x1=\"\(right - 130)\" y1=\"\(legendY)\" x2=\"\(right - 110)\" y2=\"\(legendY)\" "
      + "stroke=\"\(color)\" stroke-width=\"2\"/>\n"
    svg += "<text x=\"\(right - 104)\" y=\"\(legendY + 4)\">\(label)</text>\n"
  }
  return svg
}

private func decadeLabel(_ decade: Int) -> String {
  switch decade {
  case ..<0: return "1e\(decade)"
  case 0...2: return String(Int(pow(10, Double(decade))))
  case 3: return "1k"
  case 4: return "10k"
  case 5: return "100k"
  case 6: return "1M"
  default: return "1e\(decade)"
  }
}
