import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Todo } from '../../state/todos';
import TodoList from './TodoList.svelte';

describe('the todo list', () => {
  it('shows each task with its status, as text', () => {
    const todos: Todo[] = [
      { content: 'Read the parser', status: 'done' },
      { content: '<b>Fix</b> the bug', status: 'in_progress' },
      { content: 'Run the tests', status: 'pending' },
    ];
    render(TodoList, { todos });
    const list = screen.getByTestId('todo-list');
    expect(list.getAttribute('aria-label')).toBe('Tasks');
    const items = screen.getAllByTestId('todo-item');
    expect(items.map((item) => item.dataset.status)).toEqual(['done', 'in_progress', 'pending']);
    expect(items[1].textContent).toContain('<b>Fix</b> the bug');
    expect(items[1].querySelector('b')).toBeNull();
  });

  it('folds to one line once every task is done, and opens again', async () => {
    const todos: Todo[] = [
      { content: 'a', status: 'done' },
      { content: 'b', status: 'done' },
    ];
    render(TodoList, { todos });
    const toggle = screen.getByRole('button', { name: /All 2 tasks done/ });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryAllByTestId('todo-item')).toHaveLength(0);
    await userEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(screen.getAllByTestId('todo-item')).toHaveLength(2);
  });

  it('shows nothing for an empty list', () => {
    render(TodoList, { todos: [] });
    expect(screen.queryByTestId('todo-list')).toBeNull();
  });
});
