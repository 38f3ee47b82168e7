import Foundation
import Synchronization

/// Where the demo writes: the terminal (in colour when it is one and `NO_COLOR` is unset), and a record that tests
/// read back.
final class Console: Sendable {
  /// Whether lines go to standard output as well as to the record.
  let echoes: Bool
  /// Whether lines carry ANSI colours.
  let usesColor: Bool
  private let record = Mutex<[String]>([])

  init(echoes: Bool, usesColor: Bool) {
    self.echoes = echoes
    self.usesColor = usesColor
  }

  /// A console for the terminal: colour only on a terminal, and never when `NO_COLOR` is set or `--no-color` given.
  static func terminal(noColor: Bool) -> Console {
    let environment = ProcessInfo.processInfo.environment
    let isTerminal = isatty(STDOUT_FILENO) == 1
    return Console(echoes: true, usesColor: isTerminal && !noColor && environment["NO_COLOR"] == nil)
  }

  /// Everything written so far, without colours.
  var lines: [String] { record.withLock { $0 } }

  enum Style: String {
    case heading = "1;36"
    case success = "32"
    case failure = "31"
    case muted = "2"
    case plain = "0"
  }

  /// Writes one line.
  func line(_ text: String, _ style: Style = .plain) {
    record.withLock { $0.append(text) }
    guard echoes else { return }
    if usesColor && style != .plain {
      print("\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m")
    } else {
      print(text)
    }
  }

  /// Writes a scenario heading.
  func heading(_ text: String) {
    line("")
    line("== \(text)", .heading)
  }
}
