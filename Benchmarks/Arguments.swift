/// The command line of the benchmarks.
struct Arguments {
  var filter: String?
  var quick = false
  var checksBudgets = false
  var jsonPath: String?
  var csvPath: String?
  var svgPath: String?
  var showsHelp = false

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
      case "--help", "-h": showsHelp = true
      default: throw Problem(description: "unknown argument '\(argument)'")
      }
    }
  }
}
