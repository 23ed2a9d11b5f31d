// Changelog lines for `changeset version`: the default format ("- <commit>: <summary>"), except that
// updated internal dependencies take one line per release instead of one line per changeset.
/** @type {import('@changesets/types').ChangelogFunctions} */
const changelog = {
  async getReleaseLine(changeset) {
    const [first, ...rest] = changeset.summary.split('\n').map((line) => line.trimEnd());
    const commit = changeset.commit ? `${changeset.commit.slice(0, 7)}: ` : '';
    return [`- ${commit}${first}`, ...rest.map((line) => (line ? `  ${line}` : ''))].join('\n');
  },
  async getDependencyReleaseLine(_changesets, dependenciesUpdated) {
    if (dependenciesUpdated.length === 0) return '';
    const list = dependenciesUpdated.map((dep) => `${dep.name}@${dep.newVersion}`).join(', ');
    return `- Updated dependencies: ${list}`;
  },
};
module.exports = changelog;
