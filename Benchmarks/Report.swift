/// What a scenario must stay within: always relative to a bare primitive timed in the same run, so that a budget
/// means the same on any machine.
enum Budget {
  /// At most this many times the baseline measured in the same run.
  case ratio(Double)
  /// No budget: the row is reported for information.
  case none

  var description: String {
    switch self {
    case .ratio(let ratio): return "<= \(format(ratio))x"
    case .none: return "-"
    }
  }
}

/// One line of the results table: a scenario beside the bare primitive it is compared with.
struct Row {
  let scenario: String
  let measurement: Measurement
  let baselineName: String
  let baseline: Measurement
  let budget: Budget

  init(scenario: String, measurement: Measurement, baselineName: String, baseline: Measurement, budget: Budget) {
    self.scenario = scenario
    self.measurement = measurement
    self.baselineName = baselineName
    self.baseline = baseline
    self.budget = budget
  }

  /// A scenario timed in alternating repetitions with its baseline (see ``Plan/compare(_:with:)``).
  init(scenario: String, pair: Pair, baselineName: String, budget: Budget) {
    self.init(
      scenario: scenario, measurement: pair.scenario, baselineName: baselineName, baseline: pair.baseline,
      budget: budget)
  }

  var ratio: Double { measurement.median / baseline.median }

  var isWithinBudget: Bool {
    switch budget {
    case .ratio(let limit): return ratio <= limit
    case .none: return true
    }
  }
}

/// A figure of the run that is not a time beside a baseline: memory per item, or a ratio between two rows.
struct Figure {
  let name: String
  let value: Double
  /// `"B"` for bytes, `"x"` for a ratio.
  let unit: String
  /// The most the value may be; `nil` when the figure is reported for information.
  let limit: Double?

  var isWithinBudget: Bool { limit.map { value <= $0 } ?? true }
  var valueDescription: String { unit == "x" ? format(value) + "x" : "\(format(value)) \(unit)" }
  var budgetDescription: String {
    limit.map { "<= " + (unit == "x" ? format($0) + "x" : "\(format($0)) \(unit)") } ?? "-"
  }
}

/// Prints figures as an aligned table.
func printFigures(_ figures: [Figure]) {
  printAligned(
    header: ["figure", "measured", "budget", "ok"], leftColumns: [0],
    lines: figures.map { figure in
      [
        figure.name, figure.valueDescription, figure.budgetDescription,
        figure.limit == nil ? "-" : figure.isWithinBudget ? "yes" : "NO",
      ]
    })
}

/// The line that ends a run: how many budgets the run met and which it missed.
func summaryLine(rows: [Row], figures: [Figure]) -> String {
  let budgeted =
    rows.filter { if case .none = $0.budget { false } else { true } }.count
    + figures.filter { $0.limit != nil }.count
  let over = rows.filter { !$0.isWithinBudget }.map(\.scenario) + figures.filter { !$0.isWithinBudget }.map(\.name)
  if over.isEmpty { return "summary: all \(budgeted) budgets met" }
  return "summary: \(over.count) of \(budgeted) budgets over: \(over.joined(separator: "; "))"
}

/// Prints rows as an aligned table.
func printTable(_ rows: [Row]) {
  let header = ["scenario", "median ns/op", "p10", "p90", "baseline", "baseline ns/op", "ratio", "budget", "ok"]
  var lines: [[String]] = []
  for row in rows {
    lines.append([
      row.scenario + (row.measurement.isNoisy ? " (noisy)" : ""),
      format(row.measurement.median),
      format(row.measurement.p10),
      format(row.measurement.p90),
      row.baselineName,
      format(row.baseline.median),
      format(row.ratio) + "x",
      row.budget.description,
      { if case .none = row.budget { return "-" } else { return row.isWithinBudget ? "yes" : "NO" } }(),
    ])
  }
  printAligned(header: header, leftColumns: [0, 4], lines: lines)
}

/// Prints `lines` under `header` as a Markdown table whose columns line up; `leftColumns` are left-aligned.
private func printAligned(header: [String], leftColumns: Set<Int>, lines body: [[String]]) {
  let lines = [header] + body
  var widths = Array(repeating: 0, count: header.count)
  for line in lines {
    for (column, cell) in line.enumerated() { widths[column] = max(widths[column], cell.count) }
  }
  for (index, line) in lines.enumerated() {
    let cells = line.enumerated().map { column, cell in
      leftColumns.contains(column)
        ? cell + String(repeating: " ", count: widths[column] - cell.count)
        : String(repeating: " ", count: widths[column] - cell.count) + cell
    }
    print("| " + cells.joined(separator: " | ") + " |")
    if index == 0 {
      print("|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
    }
  }
}

/// A number with at most two decimals, fewer for large values.
func format(_ value: Double) -> String {
  if value >= 100 { return String(Int(value.rounded())) }
  let hundredths = Int((value * 100).rounded())
  let fraction = hundredths % 100
  return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
