/// The demo's command line.
struct DemoOptions: Sendable, Equatable {
  enum Scenario: String, CaseIterable, Sendable {
    case auth, topics, presence, sync, queries, all, watch, offline
  }

  /// A half of the offline scenario, run in a process of its own.
  enum OfflinePhase: String, Sendable {
    case edit, resume
  }

  var scenario = Scenario.all
  var latencyMilliseconds = 60
  var failureRate = 0.0
  var seed: UInt64 = 42
  var noColor = false
  var duration: Double?
  var settingsPath: String?
  var offlinePhase: OfflinePhase?
  var offlineFolder: String?
  var showsHelp = false

  static let usage = """
    Usage: swift run Demo [scenario] [options]

    A narrated tour of the framework: screens that share auth, a topic, presence, synced todos, queries and
    settings, against fake backends. With no scenario, everything runs in a few seconds.

    Scenarios:
      auth       sign in as a guest, with a magic code, sign out; every screen sees the same session
      topics     publish to a topic with optimistic sends that roll back on failure
      presence   change your presence while peers join and leave
      sync       edit todos offline and sync them
      queries    a cached query, invalidation, and a failure followed by retries
      all        all of the above (the default)
      watch      a live view that redraws while background tasks change the shared values
      offline    add notes offline, restart the process, go online: each edit reaches the server once

    Options:
      --latency MS        fake network latency in milliseconds (default 60)
      --failure-rate P    chance from 0 to 1 that a request fails (default 0)
      --seed N            seed for the fake backends' randomness (default 42)
      --duration SECONDS  how long `watch` runs (default: until Ctrl-C)
      --settings FILE     where the settings are kept between runs
      --offline-folder F  where `offline` keeps its cache, queue and fake server (default: a new temporary folder)
      --offline-phase P   run one half of `offline` (edit or resume) in this process, as `offline` does
      --no-color          no colours (also when NO_COLOR is set or output is not a terminal)
      --help              show this text
    """

  struct Problem: Error, Equatable, CustomStringConvertible {
    let description: String
  }

  init() {}

  init(_ arguments: [String]) throws {
    var remaining = arguments[...]
    var sawScenario = false
    func value(_ flag: String) throws -> String {
      guard let value = remaining.popFirst() else { throw Problem(description: "\(flag) needs a value") }
      return value
    }
    while let argument = remaining.popFirst() {
      switch argument {
      case "--help", "-h":
        showsHelp = true
      case "--no-color":
        noColor = true
      case "--latency":
        let text = try value(argument)
        guard let milliseconds = Int(text), milliseconds >= 0 else {
          throw Problem(description: "--latency needs a whole number of milliseconds, 0 or more, not '\(text)'")
        }
        latencyMilliseconds = milliseconds
      case "--failure-rate":
        let text = try value(argument)
        guard let rate = Double(text), (0...1).contains(rate) else {
          throw Problem(description: "--failure-rate needs a number from 0 to 1, not '\(text)'")
        }
        failureRate = rate
      case "--seed":
        let text = try value(argument)
        guard let seed = UInt64(text) else {
          throw Problem(description: "--seed needs a whole number, 0 or more, not '\(text)'")
        }
        self.seed = seed
      case "--duration":
        let text = try value(argument)
        guard let seconds = Double(text), seconds > 0 else {
          throw Problem(description: "--duration needs a positive number of seconds, not '\(text)'")
        }
        duration = seconds
      case "--settings":
        settingsPath = try value(argument)
      case "--offline-folder":
        offlineFolder = try value(argument)
      case "--offline-phase":
        let text = try value(argument)
        guard let phase = OfflinePhase(rawValue: text) else {
          throw Problem(description: "--offline-phase needs edit or resume, not '\(text)'")
        }
        offlinePhase = phase
      default:
        guard !argument.hasPrefix("-"), let scenario = Scenario(rawValue: argument) else {
          throw Problem(description: "unknown argument '\(argument)'")
        }
        guard !sawScenario else { throw Problem(description: "give one scenario, not several") }
        self.scenario = scenario
        sawScenario = true
      }
    }
  }
}
