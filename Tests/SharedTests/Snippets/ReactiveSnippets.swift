// The Reactive module's snippets, as its DocC catalog and its documentation comments show them.
// DocumentationSnippetTests checks that every snippet appears here (or in another file of this folder) as written.
import Reactive

// Reactive.md, the landing page.
func watchTemperature(display: @escaping @Sendable (Double) -> Void) -> ObserverToken {
  let temperature = ReactiveBox(20.0)

  let token = temperature.observe { print("now \($0)°") }

  Task {
    for await value in temperature.values {
      display(value)
    }
  }

  temperature.withLock { $0 += 0.5 }
  return token
}

/// GettingStarted.md.
enum ReactiveGettingStartedSnippets {
  static func createABox() -> Int {
    struct Cart: Sendable {
      var items: [String] = []
    }

    let cart = ReactiveBox(Cart())
    let count = cart.withLock { cart in
      cart.items.append("apple")
      return cart.items.count
    }
    return count
  }

  struct Cart: Sendable { var items: [String] = [] }
  static func render(_ cart: Cart) {}
  static func audit(_ cart: Cart) {}
  final class Badge: Sendable {
    var count: Int {
      get { 0 }
      set {}
    }
  }

  static func iterate(_ cart: ReactiveBox<Cart>) async {
    for await cart in cart.values {
      render(cart)  // a slow renderer skips to the newest cart
    }

    for await cart in cart.values(buffering: .all) {
      audit(cart)  // every change, in order
    }
  }

  static func observe(_ cart: ReactiveBox<Cart>, badge: Badge) {
    let token = cart.observe { cart in
      badge.count = cart.items.count
    }
    // ...
    token.cancel()
  }
}

/// The documentation comments of ReactiveBox, its values and observers, and BufferingPolicy.
enum ReactiveCommentSnippets {
  static func log(_ value: Int) {}
  static func render(_ value: Int) {}
  static func apply(_ settings: String) {}

  static func bufferingPolicy(_ box: ReactiveBox<Int>) async {
    for await value in box.values(buffering: .all) {
      log(value)  // every change, in order
    }
  }

  static func observe(_ settings: ReactiveBox<String>) {
    let token = settings.observe { settings in
      apply(settings)
    }
    // Later, or by letting `token` go:
    token.cancel()
  }

  static func tokens(_ box: ReactiveBox<Int>) {
    var tokens: [ObserverToken] = []
    tokens.append(box.observe { print($0) })
    tokens.removeAll()  // stops observing
  }

  static func values(_ counter: ReactiveBox<Int>) async {
    for await count in counter.values {
      render(count)
    }
  }

  static func box() {
    let counter = ReactiveBox(0)
    let token = counter.observe { print("now", $0) }
    counter.withLock { $0 += 1 }  // prints "now 1"
    print(counter.value)  // 1
    token.cancel()
  }

  struct Cart: Sendable { var items: [String] = [] }

  static func withLock(_ cart: ReactiveBox<Cart>, item: String) -> Int {
    let total = cart.withLock { cart in
      cart.items.append(item)
      return cart.items.count
    }
    return total
  }
}
