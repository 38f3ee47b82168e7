// `swift run Demo`: the framework used the way an app would use it.
import Shared

/// A shared counter that two "screens" watch while a background task changes it.
let counter = ReactiveBox(0)

let badge = counter.observe { value in
  print("badge shows \(value)")
}

let screen = Task {
  var seen: [Int] = []
  for await value in counter.values(buffering: .all) {
    seen.append(value)
    if value == 3 { break }
  }
  return seen
}

while counter.subscriberCount == 0 { await Task.yield() }
for _ in 1...3 {
  counter.withLock { $0 += 1 }
}
let seen = await screen.value
print("screen saw \(seen)")
badge.cancel()
