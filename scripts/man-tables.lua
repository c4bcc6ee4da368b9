-- A pandoc filter for the man pages made from docs/ (scripts/manpages.py):
-- each Markdown table becomes a list of tagged paragraphs (.TP), the
-- usual shape of a man page's key and option lists.  troff's tables
-- cannot wrap the docs' long cells into 80 columns without warnings.

local function cell_blocks(cell)
  -- a table cell's contents (pandoc 2.10+ cells carry a list of blocks)
  return cell.contents or cell
end

local function plain_text(blocks)
  return pandoc.utils.stringify(blocks)
end

local function row_cells(row)
  return row.cells or row
end

function Table(tbl)
  local heads = {}
  local head_rows = tbl.head and tbl.head.rows or {}
  if #head_rows > 0 then
    for i, c in ipairs(row_cells(head_rows[1])) do
      heads[i] = plain_text(cell_blocks(c))
    end
  end
  local items = {}
  for _, body in ipairs(tbl.bodies) do
    for _, row in ipairs(body.body) do
      local cells = row_cells(row)
      local term = pandoc.utils.blocks_to_inlines(cell_blocks(cells[1]))
      local defs = {}
      local last = #cells
      for i = 2, last do
        local blocks = cell_blocks(cells[i])
        if plain_text(blocks) ~= "" then
          local inl = pandoc.utils.blocks_to_inlines(blocks)
          -- the last column is the text; the others are labelled with
          -- their heading ("default: 7817")
          if i < last and heads[i] and heads[i] ~= "" then
            local lab = pandoc.List({pandoc.Emph({pandoc.Str(heads[i] .. ":")}),
                                     pandoc.Space()})
            lab:extend(inl)
            inl = lab
          end
          table.insert(defs, pandoc.Para(inl))
        end
      end
      if #defs == 0 then
        defs = {pandoc.Para({})}
      end
      table.insert(items, {term, {defs}})
    end
  end
  return pandoc.DefinitionList(items)
end

-- A long code word (a list of reasons, a path with a JSON key) is one
-- word to troff, which then cannot fit the line it is on; give it
-- invisible break points (\:) after its commas, slashes, semicolons and
-- underscores.
local BREAK_AFTER = "[,;/_=]"
local LONG_CODE = 40

function Code(el)
  if #el.text <= LONG_CODE then
    return nil
  end
  local out = {}
  local piece = ""
  for ch in el.text:gmatch(".") do
    piece = piece .. ch
    if ch:match(BREAK_AFTER) and #piece >= 8 then
      table.insert(out, pandoc.Code(piece))
      table.insert(out, pandoc.RawInline("man", "\\:"))
      piece = ""
    end
  end
  if piece ~= "" then
    table.insert(out, pandoc.Code(piece))
  end
  return out
end

-- Marks that groff has no glyph for under pandoc's names.
local WORDS = {["✓"] = "yes", ["✗"] = "no"}

function Str(el)
  for sym, word in pairs(WORDS) do
    if el.text:find(sym, 1, true) then
      return pandoc.Str((el.text:gsub(sym, word)))
    end
  end
  return nil
end

-- Lines are filled but not justified: a line of code pieces has no blank
-- for troff to stretch ("cannot adjust line").  Nor are words hyphenated:
-- an option cut in two ("--cpus-per-" and "gpu") cannot be searched
-- for.  AD and HY are the man macros' settings, applied at every
-- paragraph.
function Pandoc(doc)
  doc.blocks:insert(1, pandoc.RawBlock("man", ".ds AD l\n.ad l\n.nr HY 0\n.nh"))
  return doc
end
