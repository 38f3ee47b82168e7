// The snippets of the DocC curation pages (Documentation.docc/Extensions), as they show them.
import SharedState

/// Extensions/Shared.md.
struct CounterView {
  @Shared(.inMemory("counter")) var counter = 0

  func tap() {
    $counter.withLock { $0 += 1 }
  }
}

/// Extensions/QueryStore.md.
enum QueryStoreCurationSnippet {
  func afterSaving(_ post: Post) {
    let store = SharedRegistry.current.queries
    store.update(["posts", post.id], as: OperationState<Post>.self) { $0.value = post }
    store.invalidate(matching: ["posts"])
  }
}
