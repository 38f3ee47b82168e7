/// The command line of the benchmarks.
struct Arguments {
  var filter: String?
  var quick = false
  var checksBudgets = false
  var jsonPath: String?
  var csvPath: String?
  var svgPath: String?
  /// How long one scenario may take before the run ends naming it; `nil` for the default.
  var deadlineSeconds: Int?
  var showsHelp = false

  /// How long one scenario may take: `--deadline`, or 120 s with `--quick` and 900 s without.
  var scenarioLimit: Duration {
    .seconds(deadlineSeconds ?? (quick ? 120 : 900))
  }

  static let usage = """
    Usage: swift run -c release Benchmarks [options]

    Runs every scenario beside a bare primitive measured in the same run and prints one table.

    Options:
      --filter TEXT   run only the scenarios whose name contains TEXT (case-insensitive)
      --quick         a seconds-long smoke run: fewer repetitions and smaller sweeps
      --check         exit with status 1 when any row or figure is over its budget
      --json FILE     also write the results as JSON to FILE
      --csv FILE      also write the table as CSV to FILE
      --svg FILE      also draw the scaling sweeps as log-log line charts to FILE
      --deadline SECONDS
                      how long one scenario may take (default 120 with --quick, 900 without); a scenario
                      that takes longer, or a wait inside it that takes half as long, ends the run with
                      status 2, naming the scenario on standard error
      --help          show this text

    Usage: Benchmarks --instruction-probe NAME COUNT

    Runs COUNT operations of one kind and nothing else, for valgrind --tool=callgrind: NAME is read,
    tracked-read, mutex-read, increment or mutex-increment (see InstructionProbe.swift).
    """

  /// Why the command line could not be read.
  struct Problem: Error, CustomStringConvertible {
    let description: String
  }

  init(_ arguments: [String]) throws {
    var remaining = arguments[...]
    func value(for flag: String) throws -> String {
      guard let value = remaining.popFirst(), !value.hasPrefix("--") else {
        throw Problem(description: "\(flag) needs a value")
      }
      return value
    }
    while let argument = remaining.popFirst() {
      switch argument {
      case "--filter": filter = try value(for: argument)
      case "--quick": quick = true
      case "--check": checksBudgets = true
      case "--json": jsonPath = try value(for: argument)
      case "--csv": csvPath = try value(for: argument)
      case "--svg": svgPath = try value(for: argument)
      case "--deadline":
        let text = try value(for: argument)
        guard let seconds = Int(text), seconds > 0 else {
          throw Problem(description: "--deadline needs a whole number of seconds, not '\(text)'")
        }
        deadlineSeconds = seconds
      case "--help", "-h": showsHelp = true
      default: throw Problem(description: "unknown argument '\(argument)'")
      }
    }
  }
}
