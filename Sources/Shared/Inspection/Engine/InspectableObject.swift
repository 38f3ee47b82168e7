import Reactive

/// A registry's value, as an inspection reads it: a bare box or a root.
protocol InspectableObject: AnyObject {
  /// Reads the value and its listeners, each under the value's lock for a moment: nothing of the program runs.
  func inspectedParts() -> InspectedValueParts
}

/// What an inspection reads of one value; summarized and described after every lock.
struct InspectedValueParts {
  var value: Any
  var valueType: Any.Type
  var version: UInt64 = 0
  var iterations = 0
  var observers = 0
  /// The key's store, for a value that has one.
  var store: StoreParts?

  struct StoreParts {
    let key: Any
    let isLoading: Bool
    let loadError: (any Error)?
    let saveError: (any Error)?
  }
}

extension ReactiveBox: InspectableObject {
  func inspectedParts() -> InspectedValueParts {
    InspectedValueParts(
      value: value, valueType: Value.self, version: version, iterations: subscriberCount, observers: observerCount)
  }
}

extension SharedRoot: InspectableObject {
  func inspectedParts() -> InspectedValueParts {
    var parts = box.inspectedParts()
    if let persistence {
      parts.store = InspectedValueParts.StoreParts(
        key: persistence.key, isLoading: persistence.isLoading, loadError: persistence.loadError,
        saveError: persistence.saveError)
    }
    return parts
  }
}
