// A command-line face on Cutechess's rules library (its board code, built from
// the Cutechess source by scripts/build-cutechess-driver.sh), so that
// Turncoat's Andernach variants can be compared with the board Cutechess
// referees them with: perft counts and, along random walks, the legal move
// set, the SAN of every legal move, the FEN and the game result at every ply.
//
// Commands (variant: andernach, antiandernach, superandernach or standard):
//
//   driver perft  <variant> <depth> <fen>   leaf count
//   driver divide <variant> <depth> <fen>   count per root move (LAN), then the total
//   driver native <variant> <depth> <fen>   Cutechess's own perft (legalMoves + makeMove/undoMove,
//                                           as its test suite counts); see "undo" below
//   driver moves  <variant> <fen> [lan...]  after playing the moves: the FEN, the game result
//                                           ("*" or e.g. "1/2-1/2 {Draw by 3-fold repetition}"),
//                                           then one line per legal move "LAN SAN", sorted by LAN
//   driver nativedivide <variant> <depth> <fen> [lan...]
//                                           after playing the moves as `native` does: its count
//                                           per root move (LAN), then the total
//   driver walk   <variant> <seed> <walks> <plies> <fen>
//                                           random walks (uniform over the legal moves,
//                                           std::mt19937_64 seeded with <seed>); per ply one line
//                                           "<fen>\t<result>\t<lan>=<san> ...\t<chosen lan>\t<fen'>",
//                                           fen' the FEN after the chosen move played on a board
//                                           set up from <fen> (as a game that starts there);
//                                           a walk ends after <plies> plies or when no move is
//                                           legal, its last line has "-" for the move and fen',
//                                           and is followed by a line "end"
//
// Every move is played as the referee of a game plays it (refereePlay below):
// cutechess-cli checks a move (make, take back), writes its SAN (make, take
// back), plays it, asks for the result and takes it back, and plays it again.
//
// Why the counts are not taken with Cutechess's own make/undo: in Cutechess
// 1.4.0, WesternBoard::vUndoMove restores the pawn an en passant capture took
// (and re-places a pawn behind the en passant square after any move to that
// square) as a pawn of the side not to move. In Anti- and Super-Andernach the
// pawn behind the en passant square is the side to move's own pawn (its double
// step changed its colour), so undoing such a move leaves a pawn of the wrong
// colour on the board. The legality test of every move (make, test, undo)
// runs into this as soon as such a move exists, so Cutechess's own perft
// changes the positions it counts. A referee tests only the move played: here
// each move of a position that has an en passant square is tested on its own
// copy (Board::copy), and the move played is played as the referee plays it
// (refereePlay), which keeps what the undo does to the game's board
// (docs/RULES.md, "Andernach: en passant as Cutechess referees it"). Without
// an en passant square the library's own make/undo is used as it is.
// `native` and `nativedivide` keep Cutechess's own algorithm so that the
// difference can be shown.

#include <QCoreApplication>
#include <QString>
#include <QStringList>
#include <QVarLengthArray>
#include <QVector>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "board/andernachboard.h"
#include "board/result.h"
#include "board/standardboard.h"

namespace {

using Chess::Board;
using Chess::Move;

// The library's board with its protected move generation and legality test
// made reachable, and copies that keep the type.
class Probe
{
public:
	virtual ~Probe() = default;
	virtual Board* board() = 0;
	virtual Probe* clone() const = 0;
	virtual void pseudoMoves(QVarLengthArray<Move>& moves) const = 0;
	virtual bool legalHere(const Move& move) = 0;
	virtual bool hasEnPassant() const = 0;
	// Does `m` capture a king? Cutechess lists such a move where a pawn
	// handed back (see refereePlay) left the mover's king attacked; Turncoat
	// never takes a king (docs/RULES.md, "Andernach: en passant as Cutechess
	// referees it"), so these moves are left out here.
	virtual bool takesKing(const Move& m) const = 0;
};

template <class B>
class ProbeBoard : public B, public Probe
{
public:
	Board* board() override { return this; }
	Probe* clone() const override { return new ProbeBoard<B>(*this); }
	Board* copy() const override { return new ProbeBoard<B>(*this); }
	void pseudoMoves(QVarLengthArray<Move>& moves) const override
	{
		this->generateMoves(moves);
	}
	bool legalHere(const Move& move) override
	{
		return this->vIsLegalMove(move);
	}
	bool hasEnPassant() const override { return this->enpassantSquare() != 0; }
	bool takesKing(const Move& m) const override
	{
		return this->pieceAt(m.targetSquare()).type() == Chess::WesternBoard::King;
	}
};

std::unique_ptr<Probe> makeProbe(const std::string& variant)
{
	if (variant == "andernach")
		return std::make_unique<ProbeBoard<Chess::AndernachBoard>>();
	if (variant == "antiandernach")
		return std::make_unique<ProbeBoard<Chess::AntiAndernachBoard>>();
	if (variant == "superandernach")
		return std::make_unique<ProbeBoard<Chess::SuperAndernachBoard>>();
	if (variant == "standard")
		return std::make_unique<ProbeBoard<Chess::StandardBoard>>();
	return nullptr;
}

// The legal moves of `p`. Where an en passant square is set, each move is
// tested on its own copy (see the file comment); elsewhere in place.
QVector<Move> legalMoves(Probe& p)
{
	QVector<Move> legal;
	if (!p.hasEnPassant())
	{
		for (const Move& m : p.board()->legalMoves())
			if (!p.takesKing(m))
				legal << m;
		return legal;
	}
	QVarLengthArray<Move> pseudo;
	p.pseudoMoves(pseudo);
	for (const Move& m : pseudo)
	{
		if (p.takesKing(m))
			continue;
		std::unique_ptr<Probe> trial(p.clone());
		if (trial->legalHere(m))
			legal << m;
	}
	return legal;
}

// A move played as cutechess-cli's referee plays it: it checks the move and
// writes its SAN, each a make and a take-back, before it plays it. The
// take-back of a move to the en passant square puts the pawn past the square
// back as a pawn of the side not to move; where that was the mover's own (its
// double step turned it, in Anti- and Super-Andernach) and the move is a
// piece's, the played move leaves that pawn the opponent's. One make,
// take-back and make is what stays of all of it.
void refereePlay(Board* b, const Move& m)
{
	b->makeMove(m);
	b->undoMove();
	b->makeMove(m);
}

quint64 perft(Probe& p, int depth)
{
	const QVector<Move> moves = legalMoves(p);
	if (depth <= 1)
		return depth == 1 ? quint64(moves.size()) : 1;
	quint64 nodes = 0;
	if (!p.hasEnPassant())
	{
		for (const Move& m : moves)
		{
			refereePlay(p.board(), m);
			nodes += perft(p, depth - 1);
			p.board()->undoMove();
		}
		return nodes;
	}
	for (const Move& m : moves)
	{
		std::unique_ptr<Probe> child(p.clone());
		refereePlay(child->board(), m);
		nodes += perft(*child, depth - 1);
	}
	return nodes;
}

// Cutechess's own perft (projects/lib/tests/chessboard/tst_board.cpp).
quint64 nativePerft(Board* board, int depth)
{
	const QVector<Move> moves = board->legalMoves();
	if (depth == 1 || moves.isEmpty())
		return moves.size();
	quint64 nodes = 0;
	for (const Move& m : moves)
	{
		board->makeMove(m);
		nodes += nativePerft(board, depth - 1);
		board->undoMove();
	}
	return nodes;
}

std::string str(const QString& s)
{
	return s.toStdString();
}

std::string lan(Board* b, const Move& m)
{
	return str(b->moveString(m, Board::LongAlgebraic));
}

// SAN on a copy: Cutechess's SAN writer plays and takes back the move.
std::string san(const Probe& p, const Move& m)
{
	std::unique_ptr<Probe> c(p.clone());
	return str(c->board()->moveString(m, Board::StandardAlgebraic));
}

std::string resultOf(const Probe& p)
{
	std::unique_ptr<Probe> c(p.clone());
	const Chess::Result r = c->board()->result();
	if (r.isNone())
		return "*";
	return str(r.toShortString() + " {" + r.description() + "}");
}

// Legal moves as (LAN, move), sorted by LAN.
std::vector<std::pair<std::string, Move>> sortedMoves(Probe& p)
{
	std::vector<std::pair<std::string, Move>> out;
	for (const Move& m : legalMoves(p))
		out.emplace_back(lan(p.board(), m), m);
	std::sort(out.begin(), out.end(),
		  [](const auto& a, const auto& b) { return a.first < b.first; });
	return out;
}

bool playLan(Probe& p, const std::string& token)
{
	for (const auto& [l, m] : sortedMoves(p))
	{
		if (l == token)
		{
			refereePlay(p.board(), m);
			return true;
		}
	}
	return false;
}

int usage()
{
	std::fprintf(stderr,
		     "usage: driver perft|divide|native <variant> <depth> <fen>\n"
		     "       driver nativedivide <variant> <depth> <fen> [lan...]\n"
		     "       driver moves <variant> <fen> [lan...]\n"
		     "       driver walk <variant> <seed> <walks> <plies> <fen>\n");
	return 2;
}

std::unique_ptr<Probe> setUp(const std::string& variant, const std::string& fen)
{
	std::unique_ptr<Probe> p = makeProbe(variant);
	if (!p)
	{
		std::fprintf(stderr, "unknown variant %s\n", variant.c_str());
		return nullptr;
	}
	if (!p->board()->setFenString(QString::fromStdString(fen)))
	{
		std::fprintf(stderr, "invalid FEN %s\n", fen.c_str());
		return nullptr;
	}
	return p;
}

} // namespace

int main(int argc, char* argv[])
{
	QCoreApplication app(argc, argv);
	if (argc < 4)
		return usage();
	const std::string cmd = argv[1];
	const std::string variant = argv[2];

	if (cmd == "perft" || cmd == "divide" || cmd == "native" || cmd == "nativedivide")
	{
		if (argc != 5 && cmd != "nativedivide")
			return usage();
		const int depth = std::atoi(argv[3]);
		std::unique_ptr<Probe> p = setUp(variant, argv[4]);
		if (!p || depth < 1)
			return 1;
		if (cmd == "native")
		{
			std::printf("%llu\n", (unsigned long long)nativePerft(p->board(), depth));
			return 0;
		}
		if (cmd == "nativedivide")
		{
			Board* b = p->board();
			for (int i = 5; i < argc; i++)
			{
				bool found = false;
				for (const Move& m : b->legalMoves())
				{
					if (lan(b, m) == argv[i])
					{
						b->makeMove(m);
						found = true;
						break;
					}
				}
				if (!found)
				{
					std::fprintf(stderr, "illegal move %s\n", argv[i]);
					return 1;
				}
			}
			quint64 total = 0;
			for (const Move& m : b->legalMoves())
			{
				const std::string l = lan(b, m);
				b->makeMove(m);
				const quint64 n = depth > 1 ? nativePerft(b, depth - 1) : 1;
				b->undoMove();
				total += n;
				std::printf("%s %llu\n", l.c_str(), (unsigned long long)n);
			}
			std::printf("total %llu\n", (unsigned long long)total);
			return 0;
		}
		if (cmd == "perft")
		{
			std::printf("%llu\n", (unsigned long long)perft(*p, depth));
			return 0;
		}
		quint64 total = 0;
		for (const auto& [l, m] : sortedMoves(*p))
		{
			std::unique_ptr<Probe> child(p->clone());
			refereePlay(child->board(), m);
			const quint64 n = perft(*child, depth - 1);
			total += n;
			std::printf("%s %llu\n", l.c_str(), (unsigned long long)n);
		}
		std::printf("total %llu\n", (unsigned long long)total);
		return 0;
	}

	if (cmd == "moves")
	{
		std::unique_ptr<Probe> p = setUp(variant, argv[3]);
		if (!p)
			return 1;
		for (int i = 4; i < argc; i++)
		{
			if (!playLan(*p, argv[i]))
			{
				std::fprintf(stderr, "illegal move %s\n", argv[i]);
				return 1;
			}
		}
		std::printf("%s\n", str(p->board()->fenString()).c_str());
		std::printf("%s\n", resultOf(*p).c_str());
		for (const auto& [l, m] : sortedMoves(*p))
			std::printf("%s %s\n", l.c_str(), san(*p, m).c_str());
		return 0;
	}

	if (cmd == "walk")
	{
		if (argc != 7)
			return usage();
		const unsigned long long seed = std::strtoull(argv[3], nullptr, 10);
		const int walks = std::atoi(argv[4]);
		const int plies = std::atoi(argv[5]);
		std::mt19937_64 rng(seed);
		for (int w = 0; w < walks; w++)
		{
			std::unique_ptr<Probe> p = setUp(variant, argv[6]);
			if (!p)
				return 1;
			for (int ply = 0; ply <= plies; ply++)
			{
				const auto moves = sortedMoves(*p);
				std::string line = str(p->board()->fenString()) + "\t" + resultOf(*p) + "\t";
				for (size_t i = 0; i < moves.size(); i++)
				{
					if (i > 0)
						line += ' ';
					line += moves[i].first + "=" + san(*p, moves[i].second);
				}
				line += "\t";
				if (moves.empty() || ply == plies)
				{
					std::printf("%s-\t-\n", line.c_str());
					break;
				}
				const auto& chosen = moves[rng() % moves.size()];
				// The same move from the FEN alone: what a game that starts
				// here (an opening's FEN) makes of it.
				std::unique_ptr<Probe> reloaded = setUp(variant, str(p->board()->fenString()));
				if (!reloaded || !playLan(*reloaded, chosen.first))
					return 1;
				std::printf("%s%s\t%s\n", line.c_str(), chosen.first.c_str(),
					    str(reloaded->board()->fenString()).c_str());
				refereePlay(p->board(), chosen.second);
			}
			std::printf("end\n");
		}
		return 0;
	}
	return usage();
}
