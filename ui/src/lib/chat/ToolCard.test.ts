import { render, screen } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import ToolCard from './ToolCard.svelte';

describe('the tool card', () => {
  it('shows the images a tool returned, and notes the ones it does not show', () => {
    render(ToolCard, {
      call: { id: 'c1', name: 'read', arguments: { path: 'shot.png' } },
      tool: {
        id: 'c1',
        name: 'read',
        status: 'done',
        output: '',
        result: {
          content: [
            { type: 'text', text: 'Read image file [image/png]' },
            { type: 'image', data: 'iVBORw0KGgo=', mime_type: 'image/png' },
            { type: 'image', data: 'PHN2Zz4=', mime_type: 'image/svg+xml' },
          ],
        },
      },
    });
    const images = screen.getAllByTestId('tool-image');
    expect(images).toHaveLength(1);
    expect(images[0].getAttribute('src')).toBe('data:image/png;base64,iVBORw0KGgo=');
    expect(images[0].getAttribute('alt')).toBeTruthy();
    expect(screen.getByTestId('tool-output').textContent).toBe(
      'Read image file [image/png]\n[image image/svg+xml, not shown]',
    );
  });

  it('sums up a todo call', () => {
    const todos = [
      { content: 'a', status: 'done' },
      { content: 'b', status: 'pending' },
    ];
    render(ToolCard, { call: { id: 'c2', name: 'todo', arguments: { todos } }, tool: undefined });
    expect(screen.getByTestId('tool-card').textContent).toContain('1/2 done');
  });
});
