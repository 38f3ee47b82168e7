// The snippets about sharing values, as the DocC articles and the documentation comments show them.
// DocumentationSnippetTests checks that every snippet appears in this folder as written.
import Foundation
import Observation
import SharedState
import Testing

// GettingStartedWithShared.md and the `Shared` documentation: a view model.
@Observable
final class CounterModel {
  @ObservationIgnored @Shared(.inMemory("counter")) var counter = 0

  func increment() {
    $counter.withLock { $0 += 1 }
  }
}

/// GettingStartedWithShared.md.
enum GettingStartedWithSharedSnippets {
  enum Filter: Sendable { case all, open }
  struct Todo: Sendable { var title: String }
  static func render(_ filter: Filter) {}
  static func log(_ filter: Filter) {}

  struct FilterBar {
    @Shared(.inMemory("filter")) var filter = Filter.all
  }

  static func change() {
    @Shared(.inMemory("todos")) var todos: [Todo] = []
    $todos.withLock { todos in
      todos.append(Todo(title: "Water the plants"))
    }
  }

  static func passItOn() {
    @Shared(.inMemory("todo")) var todo = Todo(title: "Water the plants")
    let title: Shared<String> = $todo.title
    title.withLock { $0 = "Water the ferns" }  // writes the todo
  }

  static func react() async {
    @Shared(.inMemory("filter")) var filter = Filter.all
    for await filter in $filter.values {  // the current value, then changes
      render(filter)
    }

    let token = $filter.observe { filter in log(filter) }  // a closure after each change
    token.cancel()
  }

  // "Where each listener runs"
  @MainActor
  final class FilterLabel {
    var text = ""

    func follow(_ filter: SharedReader<Filter>) async {
      for await filter in filter.values {  // each value on the main actor, in order
        text = "\(filter)"
      }
    }
  }

  // "Hold it without the property wrapper"
  struct FilterStore: Sendable {
    let filter = Shared(wrappedValue: Filter.all, .inMemory("filter"))
    let readOnly = SharedReader(wrappedValue: Filter.all, .inMemory("filter"))  // the same value, read-only
  }

  struct Profile: Sendable { var name: String }
  static func show(_ profile: SharedReader<Profile?>) {}

  static func moreWays() {
    let progress = Shared(value: 0.0)  // no key: shared by the copies of `progress`
    progress.withLock { $0 = 0.5 }

    @Shared(.inMemory("profile")) var profile: Profile? = nil
    if let unwrapped = Shared($profile) {  // nil while the optional is nil
      unwrapped.withLock { $0.name = "Ada" }  // writes the optional's wrapped value
    }
    show(SharedReader($profile))  // read-only
  }
}

/// The documentation comment of `SharedReader.init(_:)`.
enum SharedReaderCommentSnippet {
  static func readOnly() -> SharedReader<Int> {
    @Shared(.inMemory("counter")) var counter = 0
    let reader = SharedReader($counter)
    return reader
  }
}

/// SharedState.md, the landing page.
enum SharedStateLandingSnippet {
  func count() {
    @Shared(.inMemory("counter")) var counter = 0
    $counter.withLock { $0 += 1 }
    print(counter)
  }
}

/// The documentation comments of the registry, its diagnostics, `values` and `ManualClock`.
enum RegistryCommentSnippets {
  static func render(_ count: Int) {}
  static func log(_ count: Int) {}

  static func values() async {
    @Shared(.inMemory("counter")) var counter = 0
    for await count in $counter.values {
      render(count)
    }
    for await count in $counter.values(buffering: .all) {
      log(count)  // every change, in order
    }
  }

  static func isolated() -> Shared<Int> {
    let registry = SharedRegistry()
    let isolated = SharedRegistry.$current.withValue(registry) {
      Shared(wrappedValue: 0, .inMemory("count"))
    }
    return isolated
  }

  struct Settings: Codable, Sendable { var volume = 0 }

  func saveAfterOneSecond(to url: URL) async {
    let clock = ManualClock()
    @Shared(.fileStorage(url, saveDelay: .seconds(1), clock: clock)) var settings = Settings()
    $settings.withLock { $0.volume = 3 }
    await clock.waitForSleepers(2)  // the file's poll, and the save waiting for its delay
    clock.advance(by: .seconds(1))  // now the save runs
  }
}
