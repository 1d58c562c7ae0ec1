import { valueRows } from './helm-readme';

describe('valueRows', () => {
  it('describes each key by the comment right above it, nested keys by their path, lists by their value', () => {
    const { intro, rows } = valueRows(
      [
        '# The chart.',
        '',
        '# Undocumented: a blank line separates it.',
        '',
        'image:',
        '  # The name.',
        '  repository: x/y',
        'settings:',
        '  # Required: the RPC.',
        '  # RPC_URL: https://rpc.example',
        '  # Milliseconds | between polls.',
        '  POLL_MS: 5000',
        '# Peers.',
        'from:',
        '  - podSelector: { matchLabels: { a: "b" } }',
        '# An example, left out:',
        '#   existingSecret:',
        '#     name: n',
        'redis: {}',
      ].join('\n'),
    );
    expect(intro).toEqual(['The chart.']);
    expect(rows).toEqual([
      { key: 'image.repository', default: 'x/y', description: 'The name.' },
      { key: 'settings.RPC_URL', default: '(unset)', description: 'Required: the RPC.' },
      { key: 'settings.POLL_MS', default: '5000', description: 'Milliseconds | between polls.' },
      { key: 'from', default: '[{"podSelector":{"matchLabels":{"a":"b"}}}]', description: 'Peers.' },
      { key: 'redis', default: '{}', description: 'An example, left out:' },
    ]);
  });
});
