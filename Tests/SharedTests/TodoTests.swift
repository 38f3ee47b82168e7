import SharedState
import Testing

/// The testing article's example: a model that writes a keyed value, checked in a suite with a fresh registry.
private struct Todo: Equatable, Sendable {
  var title: String
}

private struct TodoModel {
  @Shared(.inMemory("todos")) var todos: [Todo] = []

  func add(_ title: String) {
    $todos.withLock { $0.append(Todo(title: title)) }
  }
}

@Suite(.freshRegistry) struct TodoTests {
  @Test func addsATodo() {
    let model = TodoModel()
    model.add("Water the plants")
    @Shared(.inMemory("todos")) var todos: [Todo] = []
    #expect(todos.count == 1)
  }
}
