import Foundation

/// CoreFoundation's memory allocator, as CoreMedia's C-style functions take it (Avocet's stand-in:
/// Linux's Foundation does not export CoreFoundation's types). Only the allocators below exist (the C
/// heap, or nothing); they say how a memory block handed to a `CMBlockBuffer` is freed.
public final class CFAllocator: Sendable, CustomStringConvertible {
    package enum Kind: Sendable {
        /// Memory comes from and returns to the C heap (`malloc`/`free`).
        case heap
        /// Memory is never freed by the allocator: its owner frees it.
        case null
    }

    package let kind: Kind
    private let name: String

    package init(_ kind: Kind, name: String) {
        self.kind = kind
        self.name = name
    }

    public var description: String { name }

    /// Allocates `size` bytes (nil for `kCFAllocatorNull`, or a size of 0 or less).
    package func allocate(_ size: Int) -> UnsafeMutableRawPointer? {
        guard kind == .heap, size > 0 else { return nil }
        return malloc(size)
    }

    /// Frees memory this allocator gave (nothing for `kCFAllocatorNull`).
    package func deallocate(_ pointer: UnsafeMutableRawPointer) {
        if kind == .heap { free(pointer) }
    }
}

/// The default allocator: `nil`, which means the C heap, as on Apple's platforms.
public let kCFAllocatorDefault: CFAllocator? = nil
/// The system's default allocator (the C heap).
public let kCFAllocatorSystemDefault: CFAllocator? = CFAllocator(.heap, name: "kCFAllocatorSystemDefault")
/// `malloc` and `free`.
public let kCFAllocatorMalloc: CFAllocator? = CFAllocator(.heap, name: "kCFAllocatorMalloc")
/// An allocator that allocates nothing and frees nothing: memory given with it stays its owner's.
public let kCFAllocatorNull: CFAllocator? = CFAllocator(.null, name: "kCFAllocatorNull")

extension Optional where Wrapped == CFAllocator {
    /// The allocator a nil one means: the C heap.
    package var resolved: CFAllocator { self ?? CFAllocator(.heap, name: "kCFAllocatorDefault") }
}

