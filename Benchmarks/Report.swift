/// What a scenario must stay within.
enum Budget {
  /// At most this many times the baseline measured in the same run.
  case ratio(Double)
  /// At most this many nanoseconds per operation.
  case nanoseconds(Double)
  /// No budget: the row is reported for information.
  case none

  var description: String {
    switch self {
    case .ratio(let ratio): return "<= \(format(ratio))x"
    case .nanoseconds(let nanoseconds): return "<= \(format(nanoseconds)) ns"
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

  var ratio: Double { measurement.median / baseline.median }

  var isWithinBudget: Bool {
    switch budget {
    case .ratio(let limit): return ratio <= limit
    case .nanoseconds(let limit): return measurement.median <= limit
    case .none: return true
    }
  }
}

/// Prints rows as an aligned table.
func printTable(_ rows: [Row]) {
  let header = ["scenario", "median ns/op", "p10", "p90", "baseline", "baseline ns/op", "ratio", "budget", "ok"]
  var lines = [header]
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
  var widths = Array(repeating: 0, count: header.count)
  for line in lines {
    for (column, cell) in line.enumerated() { widths[column] = max(widths[column], cell.count) }
  }
  for (index, line) in lines.enumerated() {
    let cells = line.enumerated().map { column, cell in
      column == 0 || column == 4
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
