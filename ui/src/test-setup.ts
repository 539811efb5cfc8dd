import '@testing-library/jest-dom/vitest';

// jsdom has no ResizeObserver (Svelte's bind:clientWidth uses it): a stub that never reports.
if (!('ResizeObserver' in globalThis)) {
  class ResizeObserverStub {
    observe(): void {}
    unobserve(): void {}
    disconnect(): void {}
  }
  (globalThis as { ResizeObserver?: unknown }).ResizeObserver = ResizeObserverStub;
}
